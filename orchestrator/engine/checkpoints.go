package engine

import (
	"context"

	"github.com/rs/zerolog"

	"lathe/config"
	"lathe/orchestrator/checkpoint"
	"lathe/tools"
)

// wireCheckpoints keeps what each run changes in the files of ws, in
// store, for undo; the checkpoints are pruned to their bound when the
// engine closes.
func (e *Engine) wireCheckpoints(ctx context.Context, ws *tools.Workspace, store Store, u config.Undo, log zerolog.Logger) {
	tracker, err := checkpoint.New(store, ws.Dir(), TrackerOptions(u, log))
	if err != nil {
		e.warn("runs cannot be undone: " + err.Error())
		return
	}
	ws.Track(tracker)
	e.Options.Checkpoints = tracker
	e.closers = append(e.closers, tracker.Close, func() error {
		// Keep the checkpoints within their bound, once lathe is done,
		// however the run ended.
		n, err := store.PruneCheckpoints(context.WithoutCancel(ctx), u.MaxBytes)
		if err != nil {
			log.Error().Err(err).Msg("pruning the checkpoints failed")
		} else if n > 0 {
			log.Debug().Int("checkpoints", n).Int64("max_bytes", u.MaxBytes).Msg("checkpoints pruned")
		}
		return err
	})
}

// TrackerOptions are the checkpoint options of the [undo] config:
// max_file = 0 keeps no file.
func TrackerOptions(u config.Undo, log zerolog.Logger) checkpoint.Options {
	o := checkpoint.Options{MaxFile: u.MaxFile, Log: log}
	if u.MaxFile == 0 {
		o.MaxFile = checkpoint.KeepNoFile
	}
	return o
}
