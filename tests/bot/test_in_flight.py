"""InFlight: the listener runs shutdown waits for, tracked by docbot rather than by Bolt's names."""

from __future__ import annotations

import asyncio

from bot.listeners import InFlight


def test_in_flight_drain_waits_for_tracked_runs() -> None:
    in_flight = InFlight()
    done: list[str] = []

    async def run(name: str, seconds: float) -> None:
        with in_flight.track():
            await asyncio.sleep(seconds)
            done.append(name)

    async def main() -> None:
        tasks = [asyncio.create_task(run("quick", 0.05)), asyncio.create_task(run("slow", 0.1))]
        await asyncio.sleep(0)  # both have started and registered
        assert in_flight.pending() == 2
        await in_flight.drain(5.0)
        assert done == ["quick", "slow"] and in_flight.pending() == 0
        await asyncio.gather(*tasks)

    asyncio.run(main())


def test_in_flight_drain_gives_up_after_the_limit_and_forgets_finished_runs() -> None:
    in_flight = InFlight()

    async def run(seconds: float) -> None:
        with in_flight.track():
            await asyncio.sleep(seconds)

    async def main() -> None:
        stuck = asyncio.create_task(run(60.0))
        finished = asyncio.create_task(run(0.0))
        await finished
        assert in_flight.pending() == 1
        await in_flight.drain(0.05)
        assert not stuck.done()  # not cancelled: shutdown only stops waiting
        stuck.cancel()

    asyncio.run(main())


def test_in_flight_start_counts_the_run_before_it_has_begun() -> None:
    in_flight = InFlight()
    release = asyncio.Event()

    async def run() -> None:
        await release.wait()

    async def main() -> None:
        task = in_flight.start(run())
        assert in_flight.pending() == 1  # no yield yet: a drain now would wait for it
        release.set()
        await in_flight.drain(5.0)
        assert task.done() and in_flight.pending() == 0

    asyncio.run(main())
