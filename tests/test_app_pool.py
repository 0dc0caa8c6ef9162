"""The course app's kernel manager (app/voila_pool.py): pool kernels start one at a time, a visitor's at once.

The kernel start itself is replaced by a stub that records the order and makes a kernel whose state the test sets
(busy while it runs its page, then idle and quiet), so the test checks the gate's logic, not Voila or timing.
"""

from __future__ import annotations

import asyncio
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("jupyter_server")
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "app"))
from voila_pool import StaggeredPoolKernelManager  # noqa: E402

POOL = {"VOILA_PREHEAT": "True"}
VISITOR = {"VOILA_PREHEAT": "False"}


@pytest.fixture
def started(monkeypatch):
    order: list[tuple[str, str]] = []

    async def fake_start(self, *, kernel_name=None, **kwargs):
        kernel_id = f"k{len(order)}"
        order.append((kernel_id, kwargs["env"]["VOILA_PREHEAT"]))
        self._kernels[kernel_id] = SimpleNamespace(execution_state="busy", last_activity=datetime.now(timezone.utc))
        return kernel_id

    monkeypatch.setattr(AsyncMappingKernelManager, "start_kernel", fake_start)
    return order


def _ran_its_page(manager, kernel_id: str) -> None:
    """The kernel is done: idle, its last output long ago."""
    manager._kernels[kernel_id].execution_state = "idle"
    manager._kernels[kernel_id].last_activity = datetime.now(timezone.utc) - timedelta(seconds=60)


def test_pool_kernels_start_one_at_a_time_and_a_visitor_at_once(started):
    async def scenario():
        manager = StaggeredPoolKernelManager(quiet_s=0.2)
        first = asyncio.create_task(manager.start_kernel(env=POOL))
        second = asyncio.create_task(manager.start_kernel(env=POOL))
        assert await asyncio.wait_for(first, 5) == "k0"
        await asyncio.sleep(0.5)
        assert started == [("k0", "True")], "a second pool kernel started while the first still ran its page"
        visitor = await asyncio.wait_for(manager.start_kernel(env=VISITOR), 5)   # never waits for the pool
        assert started[-1] == (visitor, "False")
        assert not second.done()
        _ran_its_page(manager, "k0")
        pool_kernel = await asyncio.wait_for(second, 5)
        assert started == [("k0", "True"), (visitor, "False"), (pool_kernel, "True")]
        _ran_its_page(manager, pool_kernel)
        await asyncio.sleep(1.0)   # the gate is free again
        assert manager._pool_gate is not None and not manager._pool_gate.locked()

    asyncio.run(scenario())


def test_a_pool_kernel_that_is_shut_down_frees_the_gate(started):
    async def scenario():
        manager = StaggeredPoolKernelManager(quiet_s=0.2)
        kernel_id = await asyncio.wait_for(manager.start_kernel(env=POOL), 5)
        del manager._kernels[kernel_id]   # shut down before it ran its page
        await asyncio.wait_for(manager.start_kernel(env=POOL), 5)

    asyncio.run(scenario())


def test_the_next_pool_kernel_starts_once_voila_has_rendered_the_page(started):
    """With Voila's pool (``_pools``: per kernel the task rendering its page) the gate follows that task, not the
    kernel's activity."""
    async def scenario():
        manager = StaggeredPoolKernelManager(quiet_s=0.2)
        render = asyncio.get_running_loop().create_future()
        kernel_id = await asyncio.wait_for(manager.start_kernel(env=POOL), 5)
        item = asyncio.get_running_loop().create_future()
        item.set_result({"kernel_id": kernel_id, "task": render, "renderer": None})
        manager._pools = {"page.ipynb": [item]}
        _ran_its_page(manager, kernel_id)   # quiet and idle, but the page is still rendering
        second = asyncio.create_task(manager.start_kernel(env=POOL))
        await asyncio.sleep(1.0)
        assert not second.done(), "the next pool kernel started while Voila still rendered the page"
        render.set_result(([], None))
        assert await asyncio.wait_for(second, 5) == "k1"

    asyncio.run(scenario())
