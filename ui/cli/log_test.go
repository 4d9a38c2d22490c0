package cli

import (
	"testing"

	"github.com/rs/zerolog"

	"lathe/config"
)

// TestLogLevel: each of the config's levels is the logger's of that name;
// none is warn, the default.
func TestLogLevel(t *testing.T) {
	for _, c := range []struct {
		in   config.LogLevel
		want zerolog.Level
	}{
		{config.LogDebug, zerolog.DebugLevel},
		{config.LogInfo, zerolog.InfoLevel},
		{config.LogWarn, zerolog.WarnLevel},
		{config.LogError, zerolog.ErrorLevel},
		{"", zerolog.WarnLevel},
	} {
		if got := logLevel(c.in); got != c.want {
			t.Errorf("logLevel(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}
