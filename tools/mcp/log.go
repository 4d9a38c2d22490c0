package mcp

import (
	"context"
	"log/slog"

	"github.com/rs/zerolog"
)

// sdkLogger is the logger the MCP SDK writes through: log, every record
// at debug level, with the level the SDK gave it as sdk_level. What the
// SDK reports (a tool it left out of a list, a notification it could not
// send) is detail; what matters of it to the user, lathe says itself.
func sdkLogger(log zerolog.Logger) *slog.Logger {
	return slog.New(debugHandler{zerolog.NewSlogHandler(log)})
}

// debugHandler passes every record on to next at debug level.
type debugHandler struct{ next slog.Handler }

func (h debugHandler) Enabled(ctx context.Context, _ slog.Level) bool {
	return h.next.Enabled(ctx, slog.LevelDebug)
}

func (h debugHandler) Handle(ctx context.Context, r slog.Record) error {
	r = r.Clone()
	r.AddAttrs(slog.String("sdk_level", r.Level.String()))
	r.Level = slog.LevelDebug
	return h.next.Handle(ctx, r)
}

func (h debugHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return debugHandler{h.next.WithAttrs(attrs)}
}

func (h debugHandler) WithGroup(name string) slog.Handler {
	return debugHandler{h.next.WithGroup(name)}
}
