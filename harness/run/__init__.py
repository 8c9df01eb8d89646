"""Stage 3, run scenarios: fault specs (spec, faults), scenarios and their graphs (scenario,
chains, matrix), the worker process that drives one graph (worker, filtergraph, arming,
sites), the record of a run it sends back and every reader takes (record), the processes
that host it (processes, forkserver, forkclient), and the runner that contains each and
gives its outcome (runner, outcome, artifacts), a hang judged from /proc (idle, procfs).
Imports only obtain and compile of the stages."""
