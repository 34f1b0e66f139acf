// Package store keeps cairn's memories in an embedded Badger database. It is
// the only source of truth: every memory, version, edge, event and draft
// lives here, and every operation that changes more than one key is a single
// Badger transaction.
//
// # Key layout
//
// Keys are ASCII paths. A project appears in keys as its 16-hex-digit id
// (never a raw path); memory, event and draft ids are 26-character ULIDs, so
// they sort by creation time. Variable-length parts (tags, refs) end with a
// 0x00 byte so that one tag is never the prefix of another's range.
//
//	meta/schema                          schema version (decimal), checked at open
//	meta/dedup-index                     the deduplication indexes were built for older records
//	proj/<pid>                           memory.Project
//	pname/<name>                         pid (project names are unique)
//	pkey/<key id>                        pid: the project a repository key names (memory.Project.Keys)
//	meta/project-keys                    the projects known by path before keys were given theirs
//	mem/<id>                             memory.Memory, current version
//	ver/<id>/<version %010d>             memory.Memory as it was before an in-place edit
//	idx/<pid>/all/<id>                   every memory of a project (export, stats)
//	idx/<pid>/ls/<L>/<s>/<id>            by layer letter L and status letter s (a, r, s)
//	idx/<pid>/st/<s>/<id>                by status
//	idx/<pid>/tag/<tag>\x00<id>          by tag
//	idx/<pid>/ref/<ref>\x00              the id holding a caller's ref (unique per project)
//	idx/<pid>/hash/<hash>/<id>           by content hash (import of records without id or ref)
//	idx/<pid>/wm/<id>                    memories bound to something that can move (the wake check)
//	idx/<pid>/norm/<hash>/<id>           active memories by the hash of their normalised text (dedup)
//	idx/<pid>/nd/<band>/<id>             active memories by each band of their near-duplicate signature
//	review/<pid>/<memid>/<reviewid>      memory.Review: a person's verdict on a flagged memory (calibration)
//	vq/<pid>/<second %016x>/<id>         empty: the active memory's trust may be under the serving
//	                                     threshold from that Unix second on (the verify-first queue; verifyq.go)
//	meta/verify-index                    the version of the verify-first index, written once it is built
//	edge/out/<from>/<kind>/<to>          memory.Edge
//	edge/in/<to>/<kind>/<from>           empty: reverse lookup of the edge above
//	event/<pid>/<eventid>                memory.Event (timeline; iterated in reverse for newest first)
//	draft/<pid>/<draftid>                memory.Draft (the capture inbox)
//	evm/<memid>/<eventid>                empty: the events of one memory (dropped when it is forgotten)
//	evd/<draftid>/<eventid>              empty: the capture event of a draft (dropped with it)
//	purge/<id>                           a forget or draft drop whose bytes are still being dropped
//	                                     (finished at open); it names no content
//	vec/<hash>/<embedder>                cached vector of a content hash (written by recall)
//	dedupid/<chosen id>                  a write with a chosen id that reinforced another memory → its id (expires)
//	imp/j/<import>/<batch>/<chunk>       how to undo each batch of an import under way (finished or undone at open)
//	imp/new/<import>/<batch>             the memories that batch added
//	imp/done/<import>                    the commit record of an import (kept a while for a retry of it)
//	prop/<pid>/<id>                      memory.Proposal (waiting for a person, or decided)
//	propid/<id>                          pid: a proposal by id alone
//	propk/<pid>/<key>                    id: the same proposal is never made twice (Proposal.Key)
//	propm/<memid>/<id>, propd/<draftid>/<id>   empty: the proposals naming a memory or draft (a forget
//	                                     or a drop takes them along: they may quote its text)
//	run/r/<run>                          memory.Run without its changes: a consolidation run's commit point
//	run/c/<run>/<n>                      its changes, in chunks (ids, never titles)
//	run/p/<pid>/<run>                    empty: a project's runs
//	run/j/<run>/<batch>/<chunk>          how to undo each step of the run (ids only; kept for undo)
//	run/u/<run>                          an undo under way (finished at open)
//	rj/<memid>/<run>                     the memory as it was before the run changed it (dropped by forget)
//	from/<memid>                         the drafts a consolidation run made the memory from (ids only)
//	ingest/<hash of path>                IngestState: where the last ingest of an agent's transcript stopped
//	diary/<episodeid>                    the session's running summary (quotes it; dropped with the episode)
//	ingep/<episodeid>                    the ingest key of the session an episode is of
//	sal/<id>                             its accesses and feedback (salience; written in batches, dropped by forget)
//	subprobe/<ulid>                      written and deleted by Subscribe to know Badger's subscriber is listening
//	gap/<pid>/<gapid>                    memory.Gap: a question recall could not answer (gapid from the query)
//	dv/<pid>/f/<path>                    memory.DerivedFile: what one file of the repository says (derived.go)
//	dv/<pid>/t/<path>                    memory.Outline: that file's stamp and outline, read by a re-index
//	dv/<pid>/sum                         memory.RepoSummary: the repository's facts, modules and brief
//	dgone/<pid>/<draftid>                empty: a draft a person dropped, which a re-read must not bring back
//
// Index entries have empty values except ref (which holds the id), so
// listing by layer, status or tag iterates keys only and then reads each
// memory once. Values start with a format byte (formatJSON); decode errors
// name the key they came from.
//
// # Durability
//
// The database is opened with SyncWrites: a write acknowledged to the caller
// is on disk. Forget makes the memory unreadable and unlinked in one
// transaction that writes a content-free event, then drops every key it
// owned (versions, index entries, edges, events, reviews, cached vectors)
// from the LSM tree with DropPrefix, so the bytes are really gone; see
// forget.go.
package store
