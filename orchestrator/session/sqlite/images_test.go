package sqlite

import (
	"bytes"
	"testing"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
)

// TestImagesKeptOnceByHash: an image attached to several messages, of
// several sessions, is kept once, loaded back byte for byte with its
// name and size, and dropped with the last session that refers to it.
func TestImagesKeptOnceByHash(t *testing.T) {
	ctx := t.Context()
	db := openTest(t)
	shot := provider.Image{Name: "shot.png", Data: bytes.Repeat([]byte("\x89PNG pixels "), 5000), Width: 1280, Height: 720}
	other := provider.Image{Name: "other.jpg", Data: []byte("\xff\xd8\xff other"), Width: 10, Height: 20}
	for _, id := range []string{"s1", "s2"} {
		createSession(t, db, id, "/w", day)
		for seq, imgs := range [][]provider.Image{{shot}, nil, {shot, other}} {
			m := session.Message{Seq: seq, Message: provider.Message{Role: "user", Content: "look", Images: imgs}}
			if err := db.SaveMessage(ctx, id, m); err != nil {
				t.Fatal(err)
			}
		}
	}
	count := func() (n int, total int64) {
		t.Helper()
		if err := db.sql.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(size), 0) FROM images`).Scan(&n, &total); err != nil {
			t.Fatal(err)
		}
		return n, total
	}
	if n, total := count(); n != 2 || total != int64(len(shot.Data)+len(other.Data)) {
		t.Errorf("%d images of %d bytes kept, want 2 of %d", n, total, len(shot.Data)+len(other.Data))
	}
	saved, err := db.Load(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	got := saved.Messages[2].Message.Images
	if len(got) != 2 || !bytes.Equal(got[0].Data, shot.Data) || got[0].Name != "shot.png" || got[0].Width != 1280 ||
		got[0].Height != 720 || !bytes.Equal(got[1].Data, other.Data) || got[1].Name != "other.jpg" {
		t.Errorf("loaded %+v", got)
	}
	if err := db.Delete(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if n, _ := count(); n != 2 {
		t.Errorf("%d images left while s2 still refers to both", n)
	}
	if err := db.Delete(ctx, "s2"); err != nil {
		t.Fatal(err)
	}
	if n, _ := count(); n != 0 {
		t.Errorf("%d images left after the last session that held them was removed", n)
	}
}
