"""Compare the whole-run figures of two release builds, runs alternated.

Usage (from the repository root): python3 benches/perf_compare.py ROUNDS
BEFORE and AFTER name the two target/release directories (defaults: /tmp/before_target/release
and ./target/release); build both with `cargo build --release --examples --bins`.
"""
import json, os, statistics, subprocess, sys, time
B = os.environ.get('BEFORE', '/tmp/before_target/release')
A = os.environ.get('AFTER', os.path.abspath('target/release'))
R=int(sys.argv[1])
res={}
def run(T, which):
    out={}
    d=json.loads(subprocess.run([T+'/examples/cloth','--m','90','--h','1e-3','--t-end','1'],capture_output=True,text=True,cwd=os.getcwd()).stdout.strip().splitlines()[-1])
    out['cloth']=d['solve_seconds']
    d=json.loads(subprocess.run([T+'/examples/chain','--n','1000','--h','1e-3','--t-end','1'],capture_output=True,text=True,cwd=os.getcwd()).stdout.strip().splitlines()[-1])
    out['chain']=d['solve_seconds']
    for name in ['rscr','tennis_racket']:
        t0=time.time(); subprocess.run([T+'/lagrangian','run',f'mechanisms/{name}.yaml','--out',f'/tmp/p_{name}_{which}','--quiet'],capture_output=True,cwd=os.getcwd()); out[name]=time.time()-t0
    return out
for r in range(R):
    for which,T in [('before',B),('after',A)]:
        for k,v in run(T,which).items(): res.setdefault((which,k),[]).append(v)
for k in ['cloth','chain','rscr','tennis_racket']:
    for which in ['before','after']:
        v=sorted(res[(which,k)])
        print(f"{k:14s} {which:6s} min {v[0]:.4f} median {statistics.median(v):.4f} max {v[-1]:.4f}")
