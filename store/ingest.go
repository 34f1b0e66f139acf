package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/dgraph-io/badger/v4"

	"cairn/memory"
	"cairn/secrets"
)

// IngestState returns where the last ingest of file (an absolute path)
// stopped, with its project and the session's diary; ErrNotFound when the
// file was never ingested.
func (db *DB) IngestState(ctx context.Context, file string) (memory.IngestState, error) {
	var st memory.IngestState
	if !filepath.IsAbs(file) {
		return st, invalidf("transcript path %q is not absolute", file)
	}
	err := db.view(func(txn *badger.Txn) error {
		if err := get(txn, keyIngest(file), &st); err != nil {
			return err
		}
		if st.Episode == "" {
			return nil
		}
		item, err := txn.Get(keyDiary(st.Episode))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		st.Diary, err = item.ValueCopy(nil)
		return err
	})
	return st, err
}

// Ingest writes a batch of drafts read from an agent's transcript, in one
// transaction, and the read position when the batch carries it. A draft
// whose id is there already, or was dropped by a person, is counted as
// known and left; one that is invalid or holds a secret (the reader
// redacts them, so this is a reader's bug) is refused alone, without its
// text, and the rest are written.
func (db *DB) Ingest(ctx context.Context, b memory.IngestBatch) (memory.IngestResult, error) {
	var res memory.IngestResult
	if len(b.Drafts) > memory.MaxIngestBatch {
		return res, invalidf("ingest batch of %d drafts: send at most %d at a time", len(b.Drafts), memory.MaxIngestBatch)
	}
	if st := b.State; st != nil {
		if st.Project != b.Project {
			return res, invalidf("ingest state is for project %q, the batch for %q", st.Project, b.Project)
		}
		if !filepath.IsAbs(st.File) {
			return res, invalidf("transcript path %q is not absolute", st.File)
		}
		if st.Offset < 0 || st.Line < 0 {
			return res, invalidf("ingest position %d, line %d: not a position in a file", st.Offset, st.Line)
		}
		if st.Episode != "" && !validID(st.Episode) {
			return res, invalidf("episode id %q is not a memory id", st.Episode)
		}
		if len(st.Diary) > 0 && !json.Valid(st.Diary) {
			return res, invalidf("session diary is not JSON")
		}
		if err := secrets.Check(secrets.Field{Name: "session diary", Text: string(st.Diary)}); err != nil {
			return res, err
		}
	}
	if err := memory.ValidReason(b.Summary); err != nil {
		return res, invalid(err)
	}
	ok := make([]memory.Draft, 0, len(b.Drafts))
	for _, d := range b.Drafts {
		if err := checkIngested(&d); err != nil {
			res.Refused++
			if len(res.Errors) < 5 {
				res.Errors = append(res.Errors, err.Error())
			}
			continue
		}
		ok = append(ok, d)
	}
	err := db.update(ctx, func(txn *badger.Txn) error {
		res.Added, res.Known = 0, 0
		if err := needProject(txn, b.Project); err != nil {
			return err
		}
		for _, d := range ok {
			d.Project = b.Project
			gone, err := exists(txn, keyDraftGone(b.Project, d.ID))
			if err != nil {
				return err
			}
			there, err := exists(txn, keyDraft(b.Project, d.ID))
			if err != nil {
				return err
			}
			if gone || there {
				res.Known++
				continue
			}
			if err := putCounted(txn, keyDraft(b.Project, d.ID), d); err != nil {
				return err
			}
			res.Added++
		}
		if res.Added > 0 && b.Summary != "" {
			if _, err := db.appendEvent(txn, b.Project, memory.ActorSystem, memory.EventCapture, "", b.Summary); err != nil {
				return err
			}
		}
		if b.State != nil {
			return putIngestState(txn, *b.State)
		}
		return nil
	})
	return res, err
}

// checkIngested checks one ingested draft like Capture checks a capture,
// except that its time is the message's, not now.
func checkIngested(d *memory.Draft) error {
	switch {
	case d.Text == "":
		return invalidf("draft %s is empty", d.ID)
	case len(d.Text) > 4*memory.MaxBody:
		return invalidf("draft %s is %d bytes: at most %d", d.ID, len(d.Text), 4*memory.MaxBody)
	case !validID(d.ID):
		return invalidf("draft id %q is not a ULID", d.ID)
	case d.Time.IsZero():
		return invalidf("draft %s has no time", d.ID)
	}
	if err := d.Validate(); err != nil {
		return invalidf("draft %s: %v", d.ID, err)
	}
	if err := secrets.Check(draftFields(*d)...); err != nil {
		return fmt.Errorf("draft %s: %w", d.ID, err)
	}
	if d.Actor == "" {
		d.Actor = memory.ActorAgent
	}
	if !d.Actor.Valid() || d.Source.Actor != "" && !d.Source.Actor.Valid() {
		return invalidf("draft %s: unknown actor", d.ID)
	}
	d.Time = d.Time.UTC()
	return nil
}

// putIngestState writes the read position, and the diary under the
// episode's id (no episode, no diary: it quotes the session).
func putIngestState(txn *badger.Txn, st memory.IngestState) error {
	diary := st.Diary
	st.Diary = nil
	if st.Episode != "" {
		if _, err := getMem(txn, st.Episode); errors.Is(err, memory.ErrNotFound) {
			// Forgotten between the read and now: the session keeps none.
			st.Episode, st.NoEpisode = "", true
		} else if err != nil {
			return err
		}
	}
	if st.Episode != "" {
		if len(diary) > 0 {
			if err := txn.Set(keyDiary(st.Episode), diary); err != nil {
				return err
			}
		}
		if err := txn.Set(keyEpisodeState(st.Episode), keyIngest(st.File)); err != nil {
			return err
		}
	}
	return put(txn, keyIngest(st.File), st)
}

// forgetEpisode is what forgetting a session's episode does to the read
// position: the session gets no episode again (a person forgot it), and the
// diary, which quotes the session, is dropped with the memory's keys.
func forgetEpisode(txn *badger.Txn, id string) ([][]byte, error) {
	item, err := txn.Get(keyEpisodeState(id))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	sk, err := item.ValueCopy(nil)
	if err != nil {
		return nil, err
	}
	var st memory.IngestState
	switch err := get(txn, sk, &st); {
	case errors.Is(err, memory.ErrNotFound):
	case err != nil:
		return nil, err
	case st.Episode == id:
		st.Episode, st.NoEpisode = "", true
		if err := put(txn, sk, st); err != nil {
			return nil, err
		}
	}
	return [][]byte{keyDiary(id), keyEpisodeState(id)}, nil
}

// Triggered lists the project's active negatives (E) and lessons (F)
// whose triggers text names, at most limit, negatives first. It reads
// those two layers only, and in the store's process, so that an agent's
// hook asking about each prompt gets back a few memories, not the layers.
func (db *DB) Triggered(ctx context.Context, project, text string, limit int) ([]memory.TriggerHit, error) {
	if limit <= 0 {
		limit = 5
	}
	var out []memory.TriggerHit
	prepared := memory.PrepareTriggerText(text)
	for _, l := range []memory.Layer{memory.LayerNegative, memory.LayerMeta} {
		q := memory.Query{Project: project, Layer: l, Limit: 1000}
		for len(out) < limit {
			page, err := db.List(ctx, q)
			if err != nil {
				return nil, err
			}
			for _, m := range page.Memories {
				if t := prepared.Match(m.Triggers); t != "" && len(out) < limit {
					out = append(out, memory.TriggerHit{Memory: m, Trigger: t})
				}
			}
			if page.Next == "" {
				break
			}
			q.After = page.Next
		}
	}
	return out, nil
}
