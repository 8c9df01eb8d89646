"""Stage 5, run experiments: what runs scenarios by the batch and judges each run as it
ends: the mutation score of the gate (mutate). Imports run for the runs and judge for the
verdicts; nothing imports it but the command line."""
