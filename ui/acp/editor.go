package acp

import (
	"context"
	"errors"

	sdk "github.com/coder/acp-go-sdk"

	"lathe/tools"
)

// editor is the client's editor, for the file tools (tools.Editor): its
// fs/read_text_file and fs/write_text_file, where it advertises them.
// Reads then see its buffers, unsaved changes included, and writes go
// through it; lathe's checkpoints still keep every write for undo.
type editor struct {
	s           *acpSession
	read, write bool
}

var _ tools.Editor = (*editor)(nil)

// editor is the client's editor, or nil when it offers neither method.
func (a *agent) editor() *editor {
	fs := a.clientCaps().Fs
	if !fs.ReadTextFile && !fs.WriteTextFile {
		return nil
	}
	return &editor{read: fs.ReadTextFile, write: fs.WriteTextFile}
}

// ReadText implements tools.Editor.
func (e *editor) ReadText(ctx context.Context, path string) (string, error) {
	if !e.read {
		return "", errors.ErrUnsupported
	}
	resp, err := e.s.a.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: e.s.id, Path: path})
	if err != nil {
		return "", err
	}
	return resp.Content, nil
}

// WriteText implements tools.Editor.
func (e *editor) WriteText(ctx context.Context, path, text string) error {
	if !e.write {
		return errors.ErrUnsupported
	}
	_, err := e.s.a.conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: e.s.id, Path: path, Content: text})
	return err
}
