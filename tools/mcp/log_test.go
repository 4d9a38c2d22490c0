package mcp

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/rs/zerolog"
)

// TestSDKLogger: what the SDK logs, whatever its level, is lathe's debug
// output: nothing at the default level (warn), a debug line at debug.
func TestSDKLogger(t *testing.T) {
	var out bytes.Buffer
	sdkLogger(zerolog.New(&out).Level(zerolog.WarnLevel)).With("tool", "x").Error("excluding tool from tools/list")
	if out.Len() != 0 {
		t.Errorf("at warn: %s", out.String())
	}
	sdkLogger(zerolog.New(&out).Level(zerolog.DebugLevel)).With("tool", "x").Error("excluding tool from tools/list")
	var line map[string]any
	if err := json.Unmarshal(out.Bytes(), &line); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if line["level"] != "debug" || line["sdk_level"] != "ERROR" || line["tool"] != "x" ||
		line["message"] != "excluding tool from tools/list" {
		t.Errorf("at debug: %s", out.String())
	}
}
