#!/usr/bin/env python3
"""What `lagrangian animate` costs on the 90x90 cloth (8,100 moving points, 16,380 springs):
one run over 0.1 s written at every step (101 rows), then `animate` of it into 101 frames —
from the CSV (default columns), from npy/ (default columns) and with --gif.

    cargo build --release && python3 benches/animate_cost.py [REPEATS]

Prints, for each variant, the median and minimum wall-clock seconds of the `animate` command
over REPEATS runs (default 5), and the size of animation.html (and animation.gif).
"""
import json, os, shutil, statistics, subprocess, sys, tempfile, time

BIN = os.path.abspath("./target/release/lagrangian")
REPEATS = int(sys.argv[1]) if len(sys.argv) > 1 else 5


def run(out, fmt):
    subprocess.run([BIN, "run", "mechanisms/cloth.yaml", "--t-end", "0.1", "--output-every", "1",
                    "--format", fmt, "--quiet", "--out", out], check=True)


def animate(out, extra):
    times = []
    for _ in range(REPEATS):
        t = time.perf_counter()
        subprocess.run([BIN, "animate", out, "--fps", "1000"] + extra, check=True,
                       stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - t)
    return times


with tempfile.TemporaryDirectory() as d:
    csv, npy = os.path.join(d, "csv"), os.path.join(d, "npy")
    run(csv, "csv")
    run(npy, "npy")
    for name, out, extra in [("HTML from trajectory.csv", csv, []),
                             ("HTML from npy/", npy, []),
                             ("HTML and GIF 640x480 from npy/", npy, ["--gif"])]:
        times = animate(out, extra)
        size = os.path.getsize(os.path.join(out, "animation.html")) / 1e6
        gif = os.path.join(out, "animation.gif")
        extra_size = f", GIF {os.path.getsize(gif) / 1e6:.1f} MB" if "--gif" in extra else ""
        print(f"{name:32s} median {statistics.median(times):.3f} s   min {min(times):.3f} s"
              f"   (HTML {size:.1f} MB{extra_size})")
    # drawing one frame of the page in headless Chromium (the probe times its draws)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium:
        frames = ",".join(str(k) for k in range(0, 101, 5))
        page = "file://" + os.path.join(npy, "animation.html") + "#probe=" + frames
        dom = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                              "--no-first-run", "--user-data-dir=" + os.path.join(d, "chr"),
                              "--window-size=1200,900", "--dump-dom", page],
                             capture_output=True, text=True, check=True).stdout
        probe = json.loads(dom.split('<pre id="probe">', 2)[2].split("</pre>")[0]
                           .replace("&quot;", '"'))
        print(f"page: one frame drawn in {probe['draw_ms'] / 21:.1f} ms (mean of 21 frames, "
              f"{probe['width']}x{probe['height']} canvas, headless Chromium, no GPU)")
