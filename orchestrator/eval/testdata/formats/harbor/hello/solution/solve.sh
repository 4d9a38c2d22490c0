#!/bin/bash
rev < /app/word.txt > /app/hello.txt
