//go:build !notelemetry

package cli

import (
	"context"
	"io"
	"time"

	"github.com/rs/zerolog"

	"lathe/config"
	"lathe/orchestrator"
	"lathe/orchestrator/engine"
	"lathe/orchestrator/telemetry"
)

// flushTelemetry bounds sending what telemetry still holds at the end,
// Ctrl+C included: a collector that does not answer costs this, once.
const flushTelemetry = 3 * time.Second

// startTelemetry sets up the export of the session's runs when [telemetry]
// or the OTEL_* variables ask for it, and sets it as the runs' Observer;
// it returns what sends what is left at the end, and says what could not
// be sent (warn). Telemetry that cannot be set up is the warning returned:
// lathe runs without it.
func startTelemetry(ctx context.Context, cfg config.Config, e *engine.Engine, console io.Writer, log zerolog.Logger,
	warn func(string)) (stop func(), warning string) {
	provider := cfg.Provider
	if provider == "" {
		provider = config.ProviderOllama
	}
	t, err := telemetry.New(ctx, telemetry.Options{Config: cfg.Telemetry, Provider: provider, Server: e.Backend.URL,
		KeepAlive: cfg.KeepAlive.Duration, Version: buildVersion(), Console: console, Log: log})
	if err != nil {
		warning = "telemetry is off: " + err.Error()
	}
	if t == nil {
		return func() {}, warning
	}
	e.Options.Observer = orchestrator.Observer(t)
	return func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), flushTelemetry)
		defer cancel()
		if err := t.Close(ctx); err != nil {
			warn(err.Error())
		}
	}, ""
}
