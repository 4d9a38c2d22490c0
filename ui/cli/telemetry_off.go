//go:build notelemetry

package cli

import (
	"context"
	"io"

	"github.com/rs/zerolog"

	"lathe/config"
	"lathe/orchestrator/engine"
)

// startTelemetry, in a build without telemetry (-tags notelemetry), sets
// nothing up and links none of it: the yardstick of what linking it costs
// a start (BenchmarkStartupTelemetryLinked).
func startTelemetry(context.Context, config.Config, *engine.Engine, io.Writer, zerolog.Logger, func(string)) (func(), string) {
	return func() {}, ""
}
