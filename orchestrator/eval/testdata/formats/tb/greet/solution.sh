#!/bin/bash
echo hi > /app/greeting.txt
