"""Stage 4, judge and report: tables as Markdown, JSON and JUnit (report), sweeps and their
classes (sweep), a case's commit claims (claims, claimrun), the sanitizer claims (sanitizer,
sanreport, sanverdict) and the unchanged-output check (unchanged). Imports the earlier
stages; nothing imports it but the command line."""
