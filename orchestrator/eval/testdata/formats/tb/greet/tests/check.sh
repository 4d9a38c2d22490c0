#!/bin/bash
test "$(cat /app/greeting.txt 2>/dev/null)" = hi
