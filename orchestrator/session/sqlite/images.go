package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"lathe/orchestrator/provider"
)

// imageRef is an image as a message's images column refers to it; its
// bytes are in the images table, under Hash.
type imageRef struct {
	Hash   string `json:"hash"`
	Name   string `json:"name,omitempty"`
	Width  int    `json:"width,omitempty"`
	Height int    `json:"height,omitempty"`
}

// imageRefs is the images column of a message with imgs: NULL for none.
func imageRefs(imgs []provider.Image) (any, error) {
	refs := make([]imageRef, len(imgs))
	for i, img := range imgs {
		refs[i] = imageRef{Hash: img.Hash(), Name: img.Name, Width: img.Width, Height: img.Height}
	}
	return jsonOrNull(len(refs), refs)
}

// saveImages keeps the bytes of imgs, once each.
func saveImages(ctx context.Context, tx *sql.Tx, imgs []provider.Image) error {
	for _, img := range imgs {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO images (hash, size, data) VALUES (?, ?, ?)`,
			img.Hash(), len(img.Data), img.Data); err != nil {
			return fmt.Errorf("save image %s: %w", img.Name, err)
		}
	}
	return nil
}

// errImageMissing is a message referring to an image the store does not
// hold.
var errImageMissing = errors.New("image missing from the store")

// decodeImages reads a message's images column: references, or base64
// strings as rows written before schema version 6 hold. The bytes of the
// references are loaded through q.
func decodeImages(ctx context.Context, q querier, column string) ([]provider.Image, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte(column), &raw); err != nil {
		return nil, err
	}
	out := make([]provider.Image, len(raw))
	for i, r := range raw {
		if len(r) > 0 && r[0] == '"' { // base64, inline
			if err := json.Unmarshal(r, &out[i].Data); err != nil {
				return nil, err
			}
			continue
		}
		var ref imageRef
		if err := json.Unmarshal(r, &ref); err != nil {
			return nil, err
		}
		out[i] = provider.Image{Name: ref.Name, Width: ref.Width, Height: ref.Height}
		err := q.QueryRowContext(ctx, `SELECT data FROM images WHERE hash = ?`, ref.Hash).Scan(&out[i].Data)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("%w: %s (%s)", errImageMissing, ref.Name, ref.Hash)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// querier is a transaction or the database.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// dropUnheldImages removes the images no message, nor undone message,
// refers to.
func dropUnheldImages(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM images WHERE hash NOT IN (
		SELECT j.value ->> '$.hash' FROM messages m, json_each(m.images) j
			WHERE j.type = 'object' AND j.value ->> '$.hash' IS NOT NULL
		UNION SELECT j.value ->> '$.hash' FROM undone_messages u, json_each(u.images) j
			WHERE j.type = 'object' AND j.value ->> '$.hash' IS NOT NULL)`)
	return err
}
