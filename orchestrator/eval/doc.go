// Package eval is lathe's experiment runner: it runs the tasks of a suite
// against models, each attempt a one-shot lathe run in a fresh copy of
// the task's files followed by the task's check, records every attempt
// (the ones whose process died included) and reports and compares the
// results.
package eval
