#!/bin/bash
# The reward is 1 when /app/hello.txt holds the word reversed.
if [ "$(cat /app/hello.txt 2>/dev/null)" = "$(rev < /app/word.txt)" ]; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
