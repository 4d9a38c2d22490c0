#!/bin/bash
# Half the reward for each file.
n=0
[ -f /app/a.txt ] && n=$((n+1))
[ -f /app/b.txt ] && n=$((n+1))
case $n in 0) r=0 ;; 1) r=0.5 ;; 2) r=1 ;; esac
printf '{"reward": %s, "files": %d}\n' "$r" "$n" > /logs/verifier/reward.json
