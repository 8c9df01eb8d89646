"""Stage 4, judge and report: tables as Markdown, JSON and JUnit (report), sweeps and their
classes (sweep), a case's claims (claims, callers, warnclaims), the sanitizer claims'
reports and verdicts (sanreport, sanverdict), the unchanged-output check (unchanged,
trained) and each mutant's fate (mutate). Imports the earlier stages; nothing imports it
but the experiments and the command line."""
