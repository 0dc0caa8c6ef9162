"""The course app's kernel manager: Voila's preheated kernels filled one at a time, a visitor's kernel never waits.

app/voila.json preheats one kernel per page (Voila's ``preheat_kernel``): a page then opens from a kernel that has
already run it, the first figure in about half the time.  But Voila fills every page's pool at once when the
server starts (13 kernels importing dpviz and building an explorer on a 2-core machine), and a student who opens
a page in that minute gets a fresh kernel that competes with all of them: 14.6 s to the first figure instead of
about 4.  This manager lets one pool kernel start at a time -- the next once the previous has rendered its
page -- while a kernel started for a visitor (``VOILA_PREHEAT`` not "True") starts at once.

A page left shuts its kernel down (the page posts Voila's shutdown request as it unloads), but a request that
never arrives -- a laptop put to sleep, a crashed or killed browser, a network gone -- would keep the kernel for
ever (34 kernels, 3.5 GB after 20 throttled visits).  So kernels that nobody is connected to and that stayed idle
for ``cull_idle_timeout`` seconds (app/voila.json) are culled, jupyter_server's own culling, except the pool's
kernels, which wait for their visitor by design, and a kernel just given to a visitor, whose browser has not
connected yet (it gets a full timeout first: it was culled before the page could connect).

Voila builds its pooling manager on top of this class (``VoilaConfiguration.multi_kernel_manager_class``); it is
imported from the served directory (``python -m voila`` run from app/, as ``make app`` does).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from traitlets import Float, Int

__all__ = ["StaggeredPoolKernelManager"]


class StaggeredPoolKernelManager(AsyncMappingKernelManager):
    """Start Voila's pool kernels ``pool_starts`` at a time; start a visitor's kernel at once."""

    pool_starts = Int(1, config=True, help="How many pool kernels may be starting and running their page at once.")
    quiet_s = Float(1.0, config=True, help="A pool kernel has run its page once its output is quiet this long.")
    settle_timeout_s = Float(120.0, config=True, help="Let the next pool kernel start after this long at most.")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._pool_gate: asyncio.Semaphore | None = None
        self._out_of_pool: dict[str, float] = {}   # kernel id -> when culling first found it out of the pool

    async def start_kernel(self, *, kernel_name: str | None = None, **kwargs: Any) -> str:
        """Start a kernel; a pool kernel (env ``VOILA_PREHEAT`` = "True") first waits for its turn."""
        env = kwargs.get("env") or {}
        if env.get("VOILA_PREHEAT") != "True":
            return await super().start_kernel(kernel_name=kernel_name, **kwargs)
        if self._pool_gate is None:   # made on the server's event loop
            self._pool_gate = asyncio.Semaphore(max(1, self.pool_starts))
        await self._pool_gate.acquire()
        try:
            kernel_id = await super().start_kernel(kernel_name=kernel_name, **kwargs)
        except BaseException:
            self._pool_gate.release()
            raise
        asyncio.get_running_loop().create_task(self._release_when_settled(kernel_id, self._pool_gate))
        return kernel_id

    async def _release_when_settled(self, kernel_id: str, gate: asyncio.Semaphore) -> None:
        """Release ``gate`` once the kernel has run its page.

        Voila's pool keeps, per kernel, the task that renders the page: wait for it (a visitor who takes the kernel
        meanwhile ends it at the next cell).  Without one (not a pool kernel of this Voila), wait until the kernel
        is idle and its output quiet for ``quiet_s``.
        """
        start = time.monotonic()
        try:
            while time.monotonic() - start < self.settle_timeout_s:
                render = self._render_task(kernel_id)
                if render is not None:
                    await asyncio.wait({render}, timeout=self.settle_timeout_s - (time.monotonic() - start))
                    return
                await asyncio.sleep(0.1)
                kernel = self._kernels.get(kernel_id)
                if kernel is None:   # shut down meanwhile
                    return
                last = getattr(kernel, "last_activity", None)
                quiet_for = time.time() - last.timestamp() if last is not None else 0.0
                if getattr(kernel, "execution_state", None) == "idle" and quiet_for >= self.quiet_s and (
                        time.monotonic() - start > 3 * self.quiet_s):
                    return
        finally:
            gate.release()

    async def cull_kernel_if_idle(self, kernel_id: str) -> None:
        """Cull ``kernel_id`` as jupyter_server does (idle, no connection, for ``cull_idle_timeout`` seconds),
        unless it is a pool kernel still waiting for its visitor."""
        pool = self._pool_kernel_ids()
        if kernel_id in pool:
            return
        # a pool kernel given to a visitor has been idle since it ran its page, and the visitor's browser has not
        # connected yet: it gets a full timeout from the first check that finds it out of the pool (a check made
        # while it was still starting, before the pool listed it, does not count)
        now = time.monotonic()
        self._out_of_pool = {k: t for k, t in self._out_of_pool.items() if k in self._kernels and k not in pool}
        first_seen = self._out_of_pool.setdefault(kernel_id, now)
        if now - first_seen < self.cull_idle_timeout:
            return
        await super().cull_kernel_if_idle(kernel_id)

    def _pool_kernel_ids(self) -> set[str]:
        """The kernels in Voila's pools (``_pools``), not yet given to a visitor."""
        ids = set()
        for pool in getattr(self, "_pools", {}).values():
            for item in pool:
                if item.done() and not item.cancelled() and item.exception() is None:
                    content = item.result()
                    if isinstance(content, dict) and "kernel_id" in content:
                        ids.add(content["kernel_id"])
        return ids

    def _render_task(self, kernel_id: str) -> asyncio.Future | None:
        """The task rendering the page in pool kernel ``kernel_id`` (Voila's ``_pools``), or None."""
        for pool in getattr(self, "_pools", {}).values():
            for item in pool:
                if item.done() and not item.cancelled() and item.exception() is None:
                    content = item.result()
                    if isinstance(content, dict) and content.get("kernel_id") == kernel_id:
                        return content.get("task")
        return None
