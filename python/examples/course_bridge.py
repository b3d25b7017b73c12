"""The course's bridge exercise with the mass–spring API: a truss of masses and springs between
two supports, a load on its middle, drawn frame by frame (each ``simulate`` call goes on from
the last). Run it with ``python python/examples/course_bridge.py``; ``mypy --strict`` checks it
(python/tests/test_types.py)."""

from typing import List

from lagrangian import mass_spring as ms


def bridge(panels: int = 6, length: float = 1.0, height: float = 0.5) -> ms.MassSpringSystem2d:
    mss = ms.MassSpringSystem2d()
    mss.gravity = [0.0, -9.81]
    left = mss.add(ms.Fix([0.0, 0.0]))
    right = mss.add(ms.Fix([panels * length, 0.0]))
    bottom: List[ms.Connector] = [left]
    for i in range(1, panels):
        bottom.append(mss.add(ms.Mass(1.0, [i * length, 0.0])))
    bottom.append(right)
    top = [mss.add(ms.Mass(1.0, [(i + 0.5) * length, height])) for i in range(panels)]
    stiffness = 1e4
    for i in range(panels):
        for a, b in [(bottom[i], bottom[i + 1]), (bottom[i], top[i]), (top[i], bottom[i + 1])]:
            mss.add(ms.Spring(length_between(mss, a, b), stiffness, [a, b]))
        if i + 1 < panels:
            mss.add(ms.Spring(length, stiffness, [top[i], top[i + 1]]))
    mss.add(ms.Force(bottom[panels // 2], [0.0, -200.0]))
    return mss


def length_between(mss: ms.MassSpringSystem2d, a: ms.Connector, b: ms.Connector) -> float:
    def pos(c: ms.Connector) -> List[float]:
        return list(mss.fixes[c.index].pos if c.kind == "fix" else mss.masses[c.index].pos)

    pa, pb = pos(a), pos(b)
    return float(sum((x - y) ** 2 for x, y in zip(pa, pb)) ** 0.5)


def main() -> None:
    mss = bridge()
    mss.rho_inf = 0.6
    frames: List[float] = []
    for _ in range(50):  # 50 frames of 0.02 s, 4 steps each
        mss.simulate(0.02, 4)
        frames.append(min(m.pos[1] for m in mss.masses))
    print(f"t = {mss.t:.2f} s, lowest point {frames[-1]:.4f} m")


if __name__ == "__main__":
    main()
