"""Stage 5, run experiments: what runs scenarios by the batch and judges each run as it
ends: a sweep (sweep), the diff of two trees (diff), the branch coverage of a tree's sweep
(coverage), the mutation score of the gate (mutate), a case's claims (claims, claimrun,
callers, sanitizer) and the unchanged-output check (unchanged, trained). Imports run for
the runs and judge for the verdicts; nothing imports it but the command line."""
