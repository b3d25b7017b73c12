"""The mass-spring benchmark networks in Exudyn beside the toolkit: the same chain and cloth
(lagrangian::library::mass_spring::scenes), generalized-α with ρ∞ = 0.8 at h = 1e-3 to t = 1,
Newton to 1e-10 in both. Prints one JSON line per case: seconds to assemble and to solve, the
last mass's (chain) or the middle particle's (cloth) position at the end in each, and the ratio.

    python3 -m venv /tmp/exu && /tmp/exu/bin/pip install exudyn numpy
    cargo build --release --example chain --example cloth
    /tmp/exu/bin/python benches/exudyn_peers.py [--cases chain,cloth] [--repeat 3]

Exudyn lives only in that virtual environment, never in the toolkit's build.
"""
import argparse, json, os, subprocess, sys, time

import exudyn as exu
from exudyn.itemInterface import (LoadMassProportional, MarkerBodyMass, MarkerBodyPosition,
                                  MarkerNodePosition, MassPoint, NodePoint, ObjectGround,
                                  SpringDamper)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def chain(mbs, n):
    """N masses of 1 kg at (i, 0, 0), springs k = 1000 of rest length 1 from the origin, gravity −y."""
    ground = mbs.AddObject(ObjectGround(referencePosition=[0, 0, 0]))
    prev = mbs.AddMarker(MarkerBodyPosition(bodyNumber=ground, localPosition=[0, 0, 0]))
    last = None
    for i in range(1, n + 1):
        node = mbs.AddNode(NodePoint(referenceCoordinates=[i, 0, 0]))
        body = mbs.AddObject(MassPoint(mass=1.0, nodeNumber=node))
        m = mbs.AddMarker(MarkerNodePosition(nodeNumber=node))
        mbs.AddObject(SpringDamper(markerNumbers=[prev, m], stiffness=1000.0, damping=0.0,
                                   referenceLength=1.0))
        mbs.AddLoad(LoadMassProportional(markerNumber=mbs.AddMarker(MarkerBodyMass(bodyNumber=body)),
                                         loadVector=[0, -9.81, 0]))
        prev, last = m, node
    return last


def cloth(mbs, m):
    """m × m particles of 0.01 kg at (0.1 i, 0.1 j, 0), a fixed ring, 4-neighbour springs k = 100
    of rest length 0.1 with damping 0.01, gravity −z, the middle particle at (0, 0, 1) m/s."""
    ground = mbs.AddObject(ObjectGround(referencePosition=[0, 0, 0]))
    mid = (m + 1) // 2

    def fixed(s):
        return s[0] in (0, m + 1) or s[1] in (0, m + 1)

    marker, centre = {}, None
    for i in range(0, m + 2):
        for j in range(0, m + 2):
            p = [0.1 * i, 0.1 * j, 0.0]
            if fixed((i, j)):
                marker[i, j] = mbs.AddMarker(MarkerBodyPosition(bodyNumber=ground, localPosition=p))
                continue
            v0 = [0, 0, 1.0] if (i, j) == (mid, mid) else [0, 0, 0]
            node = mbs.AddNode(NodePoint(referenceCoordinates=p, initialVelocities=v0))
            body = mbs.AddObject(MassPoint(mass=0.01, nodeNumber=node))
            marker[i, j] = mbs.AddMarker(MarkerNodePosition(nodeNumber=node))
            mbs.AddLoad(LoadMassProportional(markerNumber=mbs.AddMarker(MarkerBodyMass(bodyNumber=body)),
                                             loadVector=[0, 0, -9.81]))
            if (i, j) == (mid, mid):
                centre = node
    for i in range(0, m + 2):
        for j in range(0, m + 2):
            for di, dj in ((1, 0), (0, 1)):
                a, b = (i, j), (i + di, j + dj)
                if b not in marker:
                    continue
                if fixed(a) and fixed(b):
                    continue
                mbs.AddObject(SpringDamper(markerNumbers=[marker[a], marker[b]], stiffness=100.0,
                                           damping=0.01, referenceLength=0.1))
    return centre


def exudyn_run(case, size):
    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    node = chain(mbs, size) if case == 'chain' else cloth(mbs, size)
    t0 = time.perf_counter()
    mbs.Assemble()
    assemble = time.perf_counter() - t0
    s = exu.SimulationSettings()
    s.timeIntegration.numberOfSteps = 1000
    s.timeIntegration.endTime = 1.0
    s.timeIntegration.generalizedAlpha.spectralRadius = 0.8
    s.timeIntegration.newton.relativeTolerance = 1e-10
    s.timeIntegration.newton.absoluteTolerance = 1e-10
    s.timeIntegration.verboseMode = 0
    # the sparse solver Exudyn recommends above 1,000 unknowns (its dense default: 89 s on the chain)
    s.linearSolver.solverType = exu.LinearSolverType.EigenSparse
    s.solution.file.write = False
    s.show.computationTime = False
    t0 = time.perf_counter()
    exu.SolveDynamic(mbs, s)
    solve = time.perf_counter() - t0
    pos = list(mbs.GetNodeOutput(node, exu.OutputVariableType.Position))
    return assemble, solve, pos


def toolkit_run(case, size):
    args = ['--n', str(size)] if case == 'chain' else ['--m', str(size)]
    exe = os.path.join(ROOT, 'target', 'release', 'examples', case)
    out = subprocess.run([exe, *args, '--h', '1e-3', '--t-end', '1'], capture_output=True,
                         text=True, check=True).stdout.strip().splitlines()[-1]
    d = json.loads(out)
    pos = d.get('last') or d.get('mid')
    return d['build_seconds'], d['solve_seconds'], pos


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--cases', default='chain,cloth')
    ap.add_argument('--repeat', type=int, default=3)
    ap.add_argument('--chain', type=int, default=1000)
    ap.add_argument('--cloth', type=int, default=90)
    a = ap.parse_args()
    for case in a.cases.split(','):
        size = a.chain if case == 'chain' else a.cloth
        ex = min((exudyn_run(case, size) for _ in range(a.repeat)), key=lambda r: r[1])
        tk = min((toolkit_run(case, size) for _ in range(a.repeat)), key=lambda r: r[1])
        print(json.dumps({'case': case, 'size': size, 'exudyn': exu.__version__,
                          'exudyn_assemble_s': ex[0], 'exudyn_solve_s': ex[1], 'exudyn_end': ex[2],
                          'toolkit_build_s': tk[0], 'toolkit_solve_s': tk[1], 'toolkit_end': tk[2],
                          'solve_ratio': ex[1] / tk[1]}), flush=True)


if __name__ == '__main__':
    sys.exit(main())
