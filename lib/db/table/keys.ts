/**
 * The single-table key design: every key string is built here and nowhere else.
 *
 * | item              | pk                          | sk                      | attributes                                  |
 * |-------------------|-----------------------------|-------------------------|---------------------------------------------|
 * | Person            | `PERSON#<id>`               | `PERSON`                | the stored Person (lib/domain/person.ts)     |
 * | ChangeHistory     | `PERSON#<id>`, `NAMEPREFIX#<id>`, `NAMESUFFIX#<id>` | `AUDIT#<version>` | the entry and its object as stored after the change (gzip JSON) |
 * | enrichment mark   | `PERSON#<id>`               | `ENRICHMENT`            | at: when enrichment wrote (once per person)  |
 * | email claim       | `EMAIL#<normalised>`        | `CLAIM`                 | personId, value                             |
 * | long claim        | `HASHED#<partition>#<sha256>` | `CLAIM`               | as above, for a value over 1024 bytes       |
 * | name claim        | `NAME#<folded fullname>`    | `CLAIM`                 | personId, value (held only by email-less persons) |
 * | abbreviation claim| `ABBREVIATION#<kind>#<folded>` | `CLAIM`              | entryId, value                              |
 * | NamePrefix/Suffix | `VOCABULARY#<kind>`         | `ENTRY#<id>`            | the stored entry (lib/domain/vocabulary.ts)  |
 * | id counter        | `COUNTER#ids`               | `COUNTER`               | value: the last id handed out               |
 * | person counters   | `COUNTER#persons#<hash(id) % 16>` | `COUNTER`               | value: persons of that shard (ADD 1 in the create's transaction); the count is their sum with `COUNTER#persons`, the one counter of tables written before the shards, which is read and never written |
 * | change counters   | `COUNTER#changes#<endpoint>#<shard>` | `COUNTER`      | value: entries of that shard (ADD 1 in each change's transaction) |
 * | posting           | `GRAM#<gram's first 2 code points>#<hash(id) % 8>` | `<gram's 3rd code point><id, 16 digits>` | id, fullname, values: per field, the person's folded values that hold the gram |
 * | posting count     | `POSTINGCOUNT#<gram's first 2 code points>` | `<gram's 3rd code point>` | postings: how many postings the gram has, kept by the stream (lib/db/person/read/posting-counts.ts) |
 * | counts complete   | `POSTINGCOUNT#`             | `COMPLETE`              | at: the counts hold every posting (written while the table held no person) |
 * | postings pending  | `PERSON#<id>`               | `POSTINGS`              | token, terms: a write whose postings did not fit its transaction is finishing them (below) |
 * | local reference   | `LOCALREF#<value>`          | `<id, 16 digits>`       | id, fullname: a person whose root `local_reference_id` is the value; or id, merged: a person merged away whose root key it was (below) |
 * | backfill position | `BACKFILL#postings#<run>#<segments>` | `SEGMENT#<n>`  | progress: how far a postings backfill came in scan segment n (lib/db/person/write/backfill.ts) |
 * | principal binding | `PRINCIPAL#<sha256 of the principal>` | `BINDING` | personId, principal: the one person of a caller (API.md 9.1, requester binding on) |
 * | person's principal | `PERSON#<id>`             | `PRINCIPAL`             | principal: the one caller bound to the person (the other side of the binding) |
 * | merged from       | `PERSON#<survivor>`         | `MERGEDFROM#<source, 16 digits>` | sourceId, at, record: person `source` was merged into this one, and what the merge did (lib/db/person/merged-from.ts) |
 * | feed head         | `FEED#<shard>`              | `HEAD`                  | seq: how many events the shard holds (API.md 14, lib/db/feed/feed-log.ts) |
 * | feed event        | `FEED#<shard>`              | `EVENT#<seq, 12 digits>` | the event (lib/domain/feed.ts `FeedEvent`), its shard and seq |
 * | feed mark         | `FEEDEVENT#<event id>`      | `FEEDEVENT`             | shard, seq: the event is in the feed (appended once); its id is its ChangeHistory entry's, or a duplicate pair's `eventId` |
 * | duplicate pair    | `DUPPAIR#<lower id>-<higher id>` | `PAIR`           | the pair (API.md 12.1: persons, score, grade, features, detected, status, decided_by, decided), eventId (its `duplicate.detected`), revision (lib/db/duplicates/pair-store.ts) |
 * | duplicates queue  | `DUPQUEUE#<status>#<grade>#<hash(ids) % 4>` | `<1000 - score × 10, 4 digits>#<lower id, 16 digits>#<higher id, 16 digits>` | pair: a copy of the pair, where the queue is read in score order |
 * | duplicate link    | `DUPLICATES#<person id>`    | `PAIR#<other id, 16 digits>` | pairId: a pair the person is in (put once, with the pair) |
 * | duplicates scan   | `DUPSCAN#persons`           | `POSITION`              | cursor (the export's), checked, done: how far `npm run duplicates -- --scan` came |
 * | idempotency record | `IDEMPOTENCY#<sha256>`     | `IDEMPOTENCY`           | status, expiration (the table's TTL), in_progress_expiration, validation, data: the answer to a write sent with an `Idempotency-Key` (lib/db/idempotency/idempotency-store.ts) |
 * | webhook subscription | `SUBSCRIPTIONS`          | `SUBSCRIPTION#<uuid>`   | the subscription and its sealed secrets (lib/domain/subscriptions.ts): one partition, read whole, written only when a subscription is (API.md 16) |
 * | delivery lane     | `SUBSCRIPTION#<uuid>`       | `LANE`                  | position (the feed position delivered up to), attempt, first_failure, next_attempt, lease, lease_until: where a subscription's deliveries stand (lib/db/webhooks/lane-store.ts) |
 * | delivery attempt  | `SUBSCRIPTION#<uuid>`       | `DELIVERY#<inverted ms, 13 digits>#<event id>#<attempt>` | event, type, at, status, outcome, duration_ms, attempt, expiration (the table's TTL: 30 days): one attempt, newest first |
 *
 * Index `byName` (the list of persons): every Person item also carries `listPk` = `PERSONS#<shard>`
 * (8 partitions, the shard a hash of the id) and `listSk` = `<folded fullname>\u0001<id, 16 digits>`,
 * so each partition is ordered by folded fullname with ties by id (`\u0001` sorts below every
 * character a folded name holds, so "ann" comes before "ann b"); names that agree in their first 512
 * bytes are ordered by id. A list merges the partitions by `listSk`. Persons written before the split
 * sit in the one partition `PERSON` until their next write moves them; lists read it as a ninth. The
 * index projects only `id`, `fullname` and the folded searchable forms (`search_first_name`,
 * `search_last_name`, `search_email`, `search_rest`): a list reads small index entries, never Person
 * documents. One index partition takes about 1 000 writes/s; 8 take the creates of 8 000/s.
 *
 * What a list request costs, for N persons in the table (P = 9 partitions, the legacy one included):
 * - no filter, `limit` L at `offset` O: one BatchGetItem of the 17 person counters (the count: one
 *   call whatever N is, 17 items of `COUNTER_ITEM_BYTES` (40), 8.5 read units), and the window merged
 *   from the P partitions: each is read in chunks of ceil((O + L) / 8) + 1 entries (person-list.ts
 *   `listChunk`), a partition asked again only when the merge has used up what it read, never more
 *   than O + L entries from one partition, and the merge stops at O + L. First page (O = 0, L = 50):
 *   P Queries at once and a few refills, about 50 + P * 8 entries of about 200 bytes (207 for the
 *   bench's seeded persons). Offset O: about O + L + P * (O + L) / 8 entries at most, in P calls and
 *   a refill or two each (one Query returns at most 1 MB, about 5 000 entries). All N when O is past
 *   the end.
 * - a filter of 2 or more code points (lib/db/person/read/posting-search.ts): the search postings below, never
 *   the index, whatever N, O and L are. Any probe of a filter (a gram of a fragment of 3+ code points,
 *   the prefix of one of 2) can supply its candidates; the reader measures them and reads the smallest
 *   (issue #36: letter frequency misled it, `lowski` read `wsk`, ten times `low`). In rounds of calls
 *   sent at once:
 *   1. the counts, when the query has more than one probe (every gram of each fragment, 8 spread over
 *      one of more than 10 code points; G in all, at most 32 for four filters): one BatchGetItem of
 *      their posting counts and the mark that the counts are complete (below), eventually consistent,
 *      G + 1 items of `POSTING_COUNT_ITEM_BYTES` (50), half a read unit each; and one Query per prefix probe of its
 *      prefix's counts (the grams starting with it, summed; one read unit per 4 KB of them). The
 *      probe with the fewest postings is read whole: exactly the rarest, up to what the stream has not
 *      counted yet (a few seconds of writes).
 *   1b. only on a table whose counts are not complete (it held persons before they were counted): the
 *      samples, one Query per probe with Limit 64 in one shard (a hash of the fragment: every gram of a
 *      fragment in the same one), and a GetItem of the id counter. A Query costs its items' bytes
 *      rounded up to 4 KB, halved: 64 postings of about 150 bytes are 1 to 1.5 read units, a sample of
 *      under 27 the minimum 0.5. So G + 1 calls, at most 64 G postings and 1.5 G + 0.5 read units. A
 *      shard read to its end counts the probe exactly (times 8, the shard being a hash of the id); a
 *      full page is extrapolated from how far through the ids it got (within about 12%); one shard
 *      cannot tell a gram of 1 posting from one of 11 (`email=-1234@` at 1 000 persons read 12).
 *   2. the chosen probe read whole: one Query per shard (a sampled shard goes on from its sample,
 *      nothing read twice), R postings in all (a shard's Query returns up to 5 000: one more round per
 *      5 000 a shard holds). It asks for the stub and the filter's values, so about half of each
 *      posting comes back, but the read units are those of whole postings.
 *   3. every other filter, fewest postings first, applied the cheaper way for the C candidates still in
 *      (issue #60, lib/db/person/read/list-plan.ts, which the capacity model prices with too): checked,
 *      one BatchGetItem per 100 candidates of their posting of one of its grams (persons, for a fragment
 *      under 3 code points), C half units; or, where the counts size its rarest probe and reading that
 *      whole costs less (8 Queries, half a unit per started 4 KB of a shard's postings: about 68
 *      postings a unit), that probe read as in 2 and the candidates kept among its postings holding
 *      the fragment, a round more. `first_name=mari&last_name=owski` at 100 000 persons checked the
 *      7 735 candidates of "ows" for 3 995.5 units in all; reading "ari" (20 000) costs about 300.
 *   A query of one probe (a fragment of 3 or 2 code points alone) has nothing to choose: round 2 only,
 *   8 Queries. The stubs come from the postings, so the page costs nothing more; the cost line names
 *   the probe read whole, R, how the probes were sized (`counts`, `samples`), the postings the samples
 *   read, the rounds and the probes `intersected`. Items read: R + G + 1 (the counts and the mark; + at
 *   most 64 per other probe and 1 where it samples) + per other filter one per candidate or the
 *   postings of its rarest probe. Measured (`npm run bench -- --quick
 *   --only scale`, names whose rare-looking grams are common): every filter reads its rarest gram's
 *   postings and no more, in 2 rounds: `last_name=lowski` at 10 000 persons 212 postings of `low`
 *   (1 + 8 calls) where sampling read 404 and letter frequency `wsk`; a rare fragment whose other grams
 *   are common no longer pays their samples (`quillfeather`: 10 postings, it read 100 with samples).
 *   A common fragment (`maria`, 20 000 of 100 000) costs its R and the 4 counts: 1 + 8 calls (2 500
 *   postings a shard, one page each), 2 rounds. Its time is the
 *   reads (issue #36; `npm run bench -- --only scale`, the steps of test/bench/constant.ts at 20 000
 *   persons, 4 000 matches, a shared 2-core machine): the chosen probe's Queries alone, on the raw
 *   client, take as long as the whole handler's median (112 ms against 107; 210 against 215 under more
 *   load), the samples' round (before the counts) 11 ms; after them unmarshalling 5 ms (the document client's `unmarshall`,
 *   no leaner library path), matching 0.9, sorting and the window 2.1. The sorting was 8.7 ms, and at
 *   20 000 matches 72 to 101 ms (the bench's names, measured in one process): the list now keeps its
 *   first offset + limit matches in a heap instead of sorting all of them, orders by `listSortName` and
 *   the id instead of a key string per match, and `fold` lower-cases plain ASCII words directly, 18 to
 *   26 ms, the same count and order. What is left grows with the postings read, each needed for the
 *   exact count: DynamoDB's reading and the SDK's parsing of R postings. Without complete counts R is
 *   at most 1.5 times the rarest gram's postings plus the sampling when every other gram holds at most
 *   1.5 times the rarest's postings or at least 3 times and 256 more (the property of
 *   test/unit/db/person/read/probe-choice.test.ts); a gram between is now and then taken for the rarest.
 *   A 2-code-point fragment reads every posting whose gram starts with it (`ma`: mar, mat, may, ...),
 *   the persons holding those 2 code points before another: up to N for a pair as common as `an`.
 * - every filter of one code point: no posting narrows the list (a letter is in most persons):
 *   every partition of `byName` read whole, its `search_*` attributes matched with `contains`, N
 *   entries. A filter of one code point beside a longer one is checked on the candidates' persons.
 * - `local_reference_id`, alone or with filters (lib/db/person/read/local-reference-search.ts): the M reference
 *   items of the value's partition (below), one strongly consistent Query paged to its end (items of
 *   about 60 bytes: one read unit per 4 KB of them, 1 for up to about 60 matches), never the index or
 *   the postings. Each other filter is checked on the candidates still in, strongly too: one
 *   BatchGetItem per 100 of them, of their posting of one of its grams (of the persons, for a fragment
 *   under 3 code points). Items read: M + at most M per other filter, whatever N is; 1 call for the
 *   value alone, a value no one holds reads nothing more. The cost line's source is `local reference`,
 *   with `references`: M.
 * - `limit=0` without filters: the counters read only.
 * What one reconciliation query costs (`/reconcile`, lib/db/person/read/reconcile-candidates.ts), whatever N
 * is: never the index, never every person. In rounds of calls sent at once:
 * 1. per `email` property sent (or a query text that is an email address), one GetItem of its email
 *    claim (0.5 read units: the one holder, or none); beside them, the postings of each form of the
 *    whole folded name (the name; for "Last, First" also "First Last") as a `search` fragment, read as
 *    a filtered list of that one filter reads it (above: one BatchGetItem of the counts of its G grams,
 *    G at most 8, and the mark, or on a table whose counts are not complete G + 1 sample calls; then
 *    the rarest gram's R postings in one Query per shard);
 * 2. only when no one found has exactly that name (folded): the same for each of the name's longest
 *    words of 3 or more code points, at most 3 (`Jon Smith` reads `smith`'s postings: every Smith);
 * 3. only for a word of round 2 that found no one (misspelt): the same for its two halves of 3 code
 *    points or more, at most 6 fragments (`lovelase`: `love` and `lase`);
 *    a name without a word of 3 code points (`Yu Na`, `X. Ma`, issue #53) has no round 2 or 3 but
 *    one in their place: its words of 2 code points, each by the gram of the word and the end mark
 *    (`ma` + end: the persons with a value ending in `ma`), read as a filtered list of one filter per
 *    word (the rarest of those grams whole, the others checked on its candidates, one BatchGetItem
 *    per 100);
 * 4. one BatchGetItem, eventually consistent, of the persons scored: the best 25 by their name's score,
 *    every exact namesake and email holder with them, 100 at most (half a read unit per 4 KB of each).
 * So a query reads, per fragment searched (1 or 2 for a name someone holds exactly, at most 11 for a
 * misspelt one), the postings of its rarest gram and G + 1 counts (or at most 64 G sampled postings),
 * and at most 100 persons; a batch of Q distinct queries Q times that, at once (a query repeated in
 * the batch is read once). R is the share of the persons that hold the gram, so it grows with N: not
 * every person, but not a constant either. The bench (`npm run bench -- --only scale`, a batch of 10
 * as OpenRefine sends it, test/bench/scale.ts) counts this model for each query from the data it
 * seeded and checks that no query reads more (figures in docs/performance.md).
 * A word of 1 code point is not looked up, nor one of 2 in a name that has a longer word: the
 * longer word finds its persons. Suggest (`/reconcile/suggest/entity`) reads the postings of the prefix typed (3 code points
 * or more) as one fragment, the preview and data extension one BatchGetItem of the ids asked (at
 * most 100), nothing else.
 * What the export costs (`GET /Person/export`, lib/db/person/read/person-export.ts), page size L, N persons:
 * - a page walks the P partitions of `byName` in order: one Query of the partition its cursor names,
 *   L + 1 keys (about 200 bytes each; the one more tells whether the partition goes on, so a page
 *   that ends a partition moves on without an empty Query), and a second Query of the next partition
 *   when the first ends before the page is full; never more than 2. Then one BatchGetItem per 100 of
 *   the page's ids, eventually consistent: half a read unit per 4 KB of each Person item. Per page: at
 *   most 2 Queries and ceil(L / 100) BatchGetItems, about (L + 2) index entries and L Person items,
 *   whatever N is. Over the export: about N / L + P pages, so at most two calls per person (an index
 *   read and its share of a batch; only an empty partition costs a Query that finds nobody, at most P
 *   in all) and in practice, at the default L = 100, about 2 calls per 100 persons (measured on 255
 *   persons spread thin over the 9 partitions, 5 pages and 14 calls, at L = 100 or 500; 37 pages and
 *   80 calls at L = 7). A page stops early, before 4 MB of stored Person JSON (Lambda answers at most
 *   6 MB); its cursor goes on after the last person it holds.
 * - the cursor is the partition and the last index key read (base64url JSON, checked strictly when it
 *   comes back), so a page starts where the last one stopped without reading what came before.
 * - it is not a snapshot: each page reads the index as it is then. A person renamed during an export
 *   moves within its partition (its `listSk` is its name), so it may be seen twice (before and after)
 *   or not at all (moved behind the cursor); one created during it may or may not be seen; a person
 *   changed in another way is exported as it is when its page is read.
 * ChangeHistory. An object's entries live in the object's own history partition, sort key its version
 * (one entry per version, so two writes never collide and the object's version is the count). Each
 * entry stores the object after the change; the object before it is the entry of the version before.
 * Two indexes serve the other reads:
 * - `byChange` (KEYS_ONLY): `changePk` = `CHANGES#<endpoint>#<shard>`, `changeSk` = `<timestamp>#<id>`.
 *   Person entries spread over 8 shards by id (no index partition or counter that every write touches:
 *   each takes about 1 000 writes/s); a vocabulary, written rarely, has one.
 * - `byChangeId` (KEYS_ONLY): `changeId`, so `GET /ChangeHistory/{id}` finds an entry by its id.
 * What a ChangeHistory read costs, for H entries in all:
 * - one object (`endpoint` and `object_id`), L entries at offset O: one GetItem of the object (its
 *   version is the count) and one Query of L + 1 entries (the one before the window is the first
 *   entry's previous object), whatever H and the object's own history length are.
 * - `object_id` alone: the same for each of the three resource types.
 * - unfiltered or `endpoint` alone, L at offset O: one Query of the index per shard (10, or 8 for
 *   Person), O + L keys each at most; one BatchGetItem of the shard counters (the count); BatchGetItem
 *   of the L entries and their predecessors. It grows with O + L, never with H.
 * - one entry by id: one Query of `byChangeId` and one BatchGetItem (the entry and its predecessor).
 * Vocabulary lists read their one partition (GRC's tables hold tens of entries, never persons).
 *
 * The search index (lib/domain/search.ts). A posting says "this person holds this gram", one per
 * distinct gram of the person's searchable values (`first_name`, `last_name`, `email`, and the
 * fullname and freeform names for `search`: API.md 4) and person, whichever fields hold it: a name's
 * grams are mostly in the email and the fullname too, so one posting per field would store about
 * twice as many. Its partition is the gram's first two code points and the person's shard (the same
 * hash as its `byName` partition), so:
 * - the postings of a gram are one Query per shard, `begins_with(sk, <3rd code point>)`; those of a
 *   2-code-point fragment (every gram starting with it) are the shard's whole partition;
 * - no partition is written by every create: `GRAM#co` (".com") is split over 8 like the list.
 * The sort key orders a gram's postings by person id, not by name: a filtered list counts every match
 * (`count`), so it reads every posting of its rarest gram whatever the order, and sorts the matches
 * itself; a key that held the name would make every rename delete and re-put each posting instead of
 * overwriting it. A posting carries the display `fullname` (the stub, and the order: its fold, then
 * id) and, per field, the values holding the gram, so a candidate is checked on the posting alone.
 * Postings are written in the transaction of the person's write, as the difference between the
 * person's postings before and after it: a write changing no searchable value writes none, a create
 * writes all of them (one name and a 30-character email: about 40), a rename puts each again (they
 * carry the fullname), an email change those of the old and the new email.
 * When they do not fit the transaction's 100 actions, the transaction also puts `POSTINGS` (a token,
 * and the terms whose postings may still be stored) and the rest follow in transactions of up to 99
 * postings, each checking that token, the last one deleting the item. A later write that finds the
 * item puts every posting of its own and deletes those of both terms it does not hold, so a write that
 * stopped half way (a crash) is finished by the person's next write, or by `npm run backfill`.
 * What postings cost to write (`npm run bench`, section 2, computed from item sizes): a posting is one
 * write unit, two in a transaction. A create of one name and a 40-character email wrote 10.1 units
 * before the index and 109.7 with it (99.6 for its ~50 postings); a PATCH adding such an email 8 and
 * 84 (the new email's grams, and every posting whose values now also hold it). Worth it: without the
 * postings a filtered list reads every index entry (at 100 000 persons some 24 MB, ~2 950 read units
 * a request), so one search costs about what the postings of six creates do.
 *
 * Posting counts (issue #36, lib/db/person/read/posting-counts.ts): how many postings each gram has, kept
 * off the write path by the function `count-postings` on the table's stream (its INSERTs and REMOVEs
 * of postings; a posting put again is a MODIFY and counts nothing). One item per gram,
 * `POSTINGCOUNT#<first 2 code points>` / `<3rd code point>`, `POSTING_COUNT_ITEM_BYTES`, so a prefix's grams are
 * one partition. Lambda gathers up to 1 000 records for up to 10 s, and the batch's changes are
 * summed per gram: one UpdateItem ADD (one write unit) per gram whose postings the batch changed. A
 * batch of one create (slow traffic) writes about 50 counts, half the create's own ~110 units; a
 * batch of an import's creates far fewer per create (`.or`, `org` once for all of them). No write
 * waits on them and no count is written by every write: one partition takes one UpdateItem per
 * batch per gram of its prefix, at most (stream shards) × (batches a second each), well under the
 * 1 000 a partition takes. A batch delivered again after a failure adds its grams twice: a count is
 * a size to compare, not an answer. The counts are trusted only where they hold every posting: the
 * mark `POSTINGCOUNT#` / `COMPLETE` is written while the table holds no person (its person counters
 * all 0), by the deploy's reference-data resource and by `npm start` with its stream poller, both of
 * which count the stream from its start. A table that held persons before (an upgrade) has no mark
 * and its lists sample instead; a recount that marks it is not built yet.
 *
 * Local references (API.md 4, `local_reference_id=<value>`). A client finds its persons by its own key:
 * the exact root `local_reference_id`, case and all, no substring (`ref-1` is not `ref-10`). Each
 * person with a non-empty root value has one reference item, `LOCALREF#<value>` / `<id, 16 digits>`,
 * carrying the stub (`id`, `fullname`; the order is its fold, then id, computed by the reader as for
 * postings). It is written in the person's own transaction, as a claim is (never in a chain after
 * it, as postings that do not fit are), so a list by value is as fresh as the write: a create with a
 * value puts it, a PATCH that changes the value deletes the old item and puts the new one, one that
 * clears it (null or "") deletes it, a rename puts it again (the stub), any other write leaves it.
 * That is at most 2 of the write's 100 actions, counted before the postings get the room left (a
 * write of claims that fills all 100 on its own is refused with 400, as it was). The version
 * condition of the person's Put guards them, so they need no condition of their own, and a refused
 * write leaves none. No pending state: the item is right whenever the person is. The value is at most 128 UTF-16
 * units (API.md 5.2), so at most 384 bytes of UTF-8: no key needs hashing as long claims do. A
 * value's partition is written only by the writes of persons holding it: a client's own key is
 * usually one person's (a partition of one item); one shared by many is as hot as they are written.
 * The sort key is the id, not the name: a read counts every match, so it reads the whole partition
 * anyway, and a rename overwrites the item instead of moving it. Persons stored before the items are
 * given theirs by `npm run backfill` (lib/db/person/write/backfill.ts), in the same scan as their postings. A
 * stored value "" is never listed (an empty filter is no filter) and has no item.
 * A merge (API.md 13.1: a client's own key survives it) puts the source's item again as a merged
 * reference, same key, `id` and `merged: true`, no stub (the merged person holds nothing personal):
 * the list reads the merged persons it names in one strongly consistent BatchGetItem, and their
 * survivors in another, and so on along a chain (one call per hop, all chains at once), and answers
 * each live end once, its stub from its Person item, an erased end not at all. A value no one merged
 * costs nothing more. The erasure of the survivor deletes the merged references of its chain, by the
 * key each merge's record keeps (lib/db/person/write/erasure-chain.ts), or for a merge made before
 * records were kept the key its history holds (merged-from.ts `keysOfEarlierMerges`), which is how
 * `npm run backfill` gives such merged persons theirs.
 *
 * Claims are written in the same transaction as their owner with `attribute_not_exists(pk)`, and
 * released with a condition that they still name that owner, so uniqueness holds under concurrency.
 *
 * A merge (API.md 13, lib/db/person/write/person-merge.ts). The source's item under `PERSON#<id>` / `PERSON`
 * becomes a merged person (`type` `MergedPerson`: id, `superceded_by`, CoreMetaData), which has no
 * `listPk`, so the `byName` index drops it; it keeps its history partition. What a merge costs:
 * - reads: one strongly consistent BatchGetItem of both persons, their `POSTINGS` items and the
 *   requester (5 items, each person's size in 4 KB units); a GetItem per merged person of a chain
 *   followed to its live end (a refusal or a retry only).
 * - writes: one transaction of both persons' parts (person-write.ts `composeWrite`): the survivor's
 *   Put, its entry and change counter, one Put per email that passes to it (re-pointed on condition
 *   that the claim still names the source), its name claim released when it gains emails; the
 *   source's merged item, its entry and change counter, its name claim deleted, its reference item
 *   put again as its merged reference (above),
 *   its person counter stepped down, and the survivor's link to the source (below): 8 actions, one
 *   per moved email and one per claim released or reference item. Then the postings, the source's part first (its deletes take the room before the
 *   survivor's new postings, so it leaves search with the write whenever they fit; one action kept
 *   for the survivor's `POSTINGS` item): every posting of the source deleted, and the survivor's new
 *   ones (the moved names' and emails' grams, and every posting whose values now hold them). So the
 *   postings' count follows the text: a pair of one name and one email each of 25 to 35 characters
 *   is 88 to 99 actions, 80 to 91 of them postings, in one transaction; with 39-character emails it
 *   already needs a chain; two namesakes (most grams shared) 62. A pair of 25 emails each: 100
 *   actions with both `POSTINGS` items, then chain transactions of up to 99 postings per person (2
 *   with 25-character emails, 3 with 36). Measured (`npm run bench -- --only merge`, section 9):
 *   the small pair 2 calls (the read and the write), 184 write units of which 164 postings, 7 read
 *   units; the large pair 5 calls, 572 write units of which 486 postings, 9 read units.
 *   Every action in a transaction costs two write units per KB. No partition is written by every
 *   merge: the counters are the source's shard and the two entries' shards. The persons' bindings
 *   (below) are read with them (two more items); a bound source's binding moves in the same
 *   transaction, 3 actions.
 * The survivor keeps a link to each person merged into it, `PERSON#<survivor>` / `MERGEDFROM#<source>`
 * (sourceId, at, and the merge's `record`: what moved, what was dropped as equal, the social values
 * taken, the source's root key, all an unmerge needs, API.md 13.1), put in the merge's transaction, so
 * what was merged into a person is one Query of its own partition, `begins_with(sk, 'MERGEDFROM#')`,
 * never a Scan: an erasure follows the links to erase the persons merged into the one erased (API.md
 * 15; it removes each link's record, which holds the source's personal values). A chain (A into
 * B, then B into C) is followed link by link (lib/db/person/merged-from.ts). Merges made before
 * the links are given theirs by `npm run backfill`, from the merged persons it scans anyway. The links
 * sort between `ENRICHMENT` and `PERSON`, after every `AUDIT#` key: no history read meets them (the
 * enrichment's one Query of `sk >= ENRICHMENT` does, a small item per merge, as it meets `POSTINGS`).
 *
 * The change feed (API.md 14, lib/domain/feed.ts, lib/db/feed/feed-log.ts): `FEED_SHARDS` (8) logs,
 * each a partition `FEED#<shard>` holding its `HEAD` and its events by number. An object's events all
 * go to one shard. An append of k events to a shard (what the stream's batch holds for it, up to 49 a
 * transaction) is one BatchGetItem of their marks and the head (k + 1 items), then one transaction:
 * the head moved from the seq read (conditional), each event put, each event's mark put where none
 * is: 2k + 1 actions of under 1 KB, 2 (2k + 1) write units. The marks are what makes a batch the
 * stream delivers again append nothing new; each is a partition of its own. What one shard takes: its
 * partition's 1 000 write units a second pay for the head and the events, 2 (k + 1) units a
 * transaction, so about 250 events a second appended one at a time and about 490 in full batches;
 * appenders racing for one head retry. The 8 shards take 2 000 to 3 900 changes a second. A page of
 * `limit` L is one BatchGetItem of the 8 heads (eventually consistent: 4 read units) and one Query per
 * shard that has events past the cursor, for its share of L (in proportion to its backlog, at least its
 * next event: lib/domain/feed.ts `pageShares`): at most L events (or 8) of under `FEED_EVENT_BYTES`
 * (0.3 KB; 181 bytes measured), each Query rounded up to half a unit: about L / 26 read units plus half a unit a Query,
 * 8 read units for a page of 100 in 9 calls (measured: `npm run bench -- --only feed`), whatever the
 * table or the feed holds. A poll that finds nothing new is the heads alone: 1 call, 4 read units.
 *
 * Requester binding (API.md 9.1, lib/domain/principal.ts; on with `REQUESTER_BINDING`). A principal's
 * binding is two items, one per side, each put with `attribute_not_exists` in the self-registration's
 * own transaction (2 actions): `PRINCIPAL#<sha256>` / `BINDING` (personId) and `PERSON#<id>` /
 * `PRINCIPAL`, so a principal has one person and a person one principal under any concurrency. Every
 * other write by a bound caller carries one ConditionCheck of its `BINDING` item (`personId` is the
 * requester: 1 action, 2 write units in a transaction), and a PATCH or merge, which read
 * anyway, read it in the same BatchGetItem (no extra call). A principal's partition is its own: only
 * its writes touch it. Off, a write carries none of this. A delegate's `PUT /Person/{id}/principal`
 * reads the person and both sides in one BatchGetItem (3 items), then writes both sides with a check
 * of the person (3 actions, 6 write units); `DELETE` reads the person and its side (2 items) and
 * deletes both sides (2 actions, 4 write units). Sent again, either reads and writes nothing.
 */
import { createHash } from 'node:crypto';
import type { ResourceType } from '../../domain/change-history';
import type { Claim, ClaimField } from '../../domain/person';
import type { VocabularyKind } from '../../domain/vocabulary';

export interface Key {
  pk: string;
  sk: string;
}

/** DynamoDB allows 2048 bytes in a partition key; long claim values are hashed to stay well inside. */
const MAX_KEY_VALUE_BYTES = 1024;

const pad = (n: number) => String(n).padStart(10, '0');

/** An id in a sort key: 16 digits, so ids sort as numbers. */
const idDigits = (id: number) => String(id).padStart(16, '0');

/** What a person's partition key starts with: its item, its ChangeHistory, its marks (see above). */
export const PERSON_PARTITION_PREFIX = 'PERSON#';

export const personKey = (id: number): Key => ({ pk: `${PERSON_PARTITION_PREFIX}${id}`, sk: 'PERSON' });

const HISTORY_PARTITIONS: Record<ResourceType, string> = {
  Person: 'PERSON',
  NamePrefix: 'NAMEPREFIX',
  NameSuffix: 'NAMESUFFIX',
};

/** The partition holding an object's ChangeHistory (a Person's is the person's own partition). */
export const historyPartition = (endpoint: ResourceType, objectId: number): string =>
  `${HISTORY_PARTITIONS[endpoint]}#${objectId}`;

/** The ChangeHistory entry of the write that made `version` of an object. */
export const historyKey = (endpoint: ResourceType, objectId: number, version: number): Key => ({
  pk: historyPartition(endpoint, objectId),
  sk: historySortKey(version),
});

/** What the sort key of every ChangeHistory entry starts with. */
export const HISTORY_SORT_KEY_PREFIX = 'AUDIT#';

/** The sort key of an object's entry of `version`, within its history partition. */
export const historySortKey = (version: number) => `${HISTORY_SORT_KEY_PREFIX}${pad(version)}`;

/** The version a history sort key names. */
export const versionOfHistoryKey = (sk: string): number => Number(sk.slice(HISTORY_SORT_KEY_PREFIX.length));

export const CHANGE_LIST_INDEX = 'byChange';
export const CHANGE_ID_INDEX = 'byChangeId';

/** Shards of the `byChange` index and of the change counters, per endpoint (see above). */
export const CHANGE_SHARDS: Record<ResourceType, number> = { Person: 8, NamePrefix: 1, NameSuffix: 1 };

const shardOf = (endpoint: ResourceType, id: number) => id % CHANGE_SHARDS[endpoint];

export const changeListPartition = (endpoint: ResourceType, shard: number) => `CHANGES#${endpoint}#${shard}`;

/** Where an entry stands in `byChange` and `byChangeId`: newest last by time, ties by id. */
export const changeListKey = (endpoint: ResourceType, id: number, at: string) => ({
  changePk: changeListPartition(endpoint, shardOf(endpoint, id)),
  changeSk: `${at}#${idDigits(id)}`,
  changeId: id,
});

export const changeCounterKey = (endpoint: ResourceType, shard: number): Key => ({
  pk: `COUNTER#changes#${endpoint}#${shard}`,
  sk: 'COUNTER',
});

/** The counter a new entry of this id adds one to. */
export const changeCounterKeyOf = (endpoint: ResourceType, id: number): Key =>
  changeCounterKey(endpoint, shardOf(endpoint, id));

/** Written in the transaction that enriches a person, so a redelivered record never writes twice. */
export const enrichmentKey = (personId: number): Key => ({
  pk: `${PERSON_PARTITION_PREFIX}${personId}`,
  sk: 'ENRICHMENT',
});

const CLAIM_PARTITIONS: Record<ClaimField, string> = {
  email: 'EMAIL',
  name: 'NAME',
  NamePrefix: 'ABBREVIATION#NamePrefix',
  NameSuffix: 'ABBREVIATION#NameSuffix',
};

/** The sort key of every claim (email, name, abbreviation). */
export const CLAIM_SORT_KEY = 'CLAIM';

/**
 * A claim's key: `<partition>#<value>`, or for a value over 1024 bytes `HASHED#<partition>#<sha256>`.
 * Hashed keys start with a prefix no claim partition has, so no literal value (not even one spelled
 * like a hash) can equal one.
 */
export const claimKey = ({ field, value }: Claim): Key => {
  const partition = CLAIM_PARTITIONS[field];
  return {
    pk:
      Buffer.byteLength(value) <= MAX_KEY_VALUE_BYTES
        ? `${partition}#${value}`
        : `HASHED#${partition}#${createHash('sha256').update(value).digest('hex')}`,
    sk: CLAIM_SORT_KEY,
  };
};

/**
 * The key prefixes a field's claims can have (for IAM patterns in infra/): the literal one, and the
 * hashed one for fields whose values can pass 1024 bytes. An email cannot: its local part is at most
 * 64 octets and its IDNA domain 253 (lib/domain/email.ts); folded names and abbreviations can, as
 * NFKD expands some characters 18-fold.
 */
export const claimPartitionPrefixes = (field: ClaimField): string[] => {
  const literal = `${CLAIM_PARTITIONS[field]}#`;
  return field === 'email' ? [literal] : [literal, `HASHED#${literal}`];
};

export const idCounterKey: Key = { pk: 'COUNTER#ids', sk: 'COUNTER' };

/**
 * Sizes the cost models above take for items the capacity model (lib/capacity/) does not build to
 * size: a counter (its keys and `value`), a posting count (its keys and `postings`), a feed event at
 * most (181 bytes measured). The bench's feed check reads the last one too (test/bench/feed-model.ts).
 */
export const COUNTER_ITEM_BYTES = 40;
export const POSTING_COUNT_ITEM_BYTES = 50;
export const FEED_EVENT_BYTES = 0.3 * 1024;

/** Shards of the person count (see above). */
export const PERSON_COUNTER_SHARDS = 16;

/** The count of a table written before the shards: read with them, never written again. */
export const LEGACY_PERSON_COUNTER: Key = { pk: 'COUNTER#persons', sk: 'COUNTER' };

/**
 * A 32-bit mix of an id (murmur3's finaliser). Ids do not come one apart: a container's first create
 * takes the first id of its block of 50, so `id % 16` would leave half the shards unused.
 */
const mixed = (id: number) => {
  let h = Math.imul(id ^ (id >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
};

const personCounterOfShard = (shard: number): Key => ({ pk: `COUNTER#persons#${shard}`, sk: 'COUNTER' });

/** The counter the create of person `id` adds one to. */
export const personCounterKey = (id: number): Key => personCounterOfShard(mixed(id) % PERSON_COUNTER_SHARDS);

/** Every counter the person count is the sum of. */
export const PERSON_COUNTER_KEYS: readonly Key[] = [
  ...Array.from({ length: PERSON_COUNTER_SHARDS }, (_, shard) => personCounterOfShard(shard)),
  LEGACY_PERSON_COUNTER,
];

export const PERSON_LIST_INDEX = 'byName';

/** Partitions of the `byName` index (see above). */
export const PERSON_LIST_SHARDS = 8;

/** The one partition persons were listed in before the split: read as one more partition. */
export const LEGACY_PERSON_LIST_PARTITION = 'PERSON';

/** The shard of person `id`: its `byName` partition's and its postings' (a hash of the id). */
export const personShard = (id: number) => mixed(id) % PERSON_LIST_SHARDS;

const personListPartition = (id: number) => `PERSONS#${personShard(id)}`;

/** Every partition of the `byName` index, the legacy one last. */
export const PERSON_LIST_PARTITIONS: readonly string[] = [
  ...Array.from({ length: PERSON_LIST_SHARDS }, (_, shard) => `PERSONS#${shard}`),
  LEGACY_PERSON_LIST_PARTITION,
];

/** Keeps a posting partition's first code points, the third the start of its sort key. */
const POSTING_PREFIX_POINTS = 2;

/** What every search posting's partition key starts with (the stream's filter of count-postings reads it). */
export const POSTING_PARTITION_PREFIX = 'GRAM#';

/** The partition of the postings whose gram starts with `prefix`, in `shard`. */
export const postingPartition = (prefix: string, shard: number) =>
  `${POSTING_PARTITION_PREFIX}${prefix}#${shard}`;

/**
 * Where the postings of a gram (3 code points) or of every gram starting with a prefix (2) are, in
 * one shard: the partition, and what their sort keys begin with.
 */
export const postingRange = (gramOrPrefix: string, shard: number) => {
  const points = Array.from(gramOrPrefix);
  return {
    pk: postingPartition(points.slice(0, POSTING_PREFIX_POINTS).join(''), shard),
    skPrefix: points.slice(POSTING_PREFIX_POINTS).join(''),
  };
};

/** Where the posting of `gram` and person `id` is stored. */
export const postingKey = (gram: string, id: number): Key => {
  const { pk, skPrefix } = postingRange(gram, personShard(id));
  return { pk, sk: `${skPrefix}${idDigits(id)}` };
};

/** Where `gram`'s posting is in the keys of a posting item (null for a key that is not a posting's). */
export const gramOfPostingKey = ({ pk, sk }: Key): string | null => {
  const [kind, ...rest] = pk.split('#');
  if (`${kind}#` !== POSTING_PARTITION_PREFIX || rest.length < 2) return null;
  const prefix = rest.slice(0, -1).join('#');
  const [third] = Array.from(sk);
  return third === undefined ? null : `${prefix}${third}`;
};

/** The partition of the posting counts of every gram starting with `prefix` (2 code points). */
export const postingCountPartition = (prefix: string) => `POSTINGCOUNT#${prefix}`;

/** Where the count of `gram`'s postings is kept: in its prefix's partition, keyed by its 3rd code point. */
export const postingCountKey = (gram: string): Key => {
  const points = Array.from(gram);
  return {
    pk: postingCountPartition(points.slice(0, POSTING_PREFIX_POINTS).join('')),
    sk: points.slice(POSTING_PREFIX_POINTS).join(''),
  };
};

/** Says every posting of the table is counted (see above): the partition of no gram's prefix. */
export const postingCountsCompleteKey: Key = { pk: postingCountPartition(''), sk: 'COMPLETE' };

/** What the partition key of every local reference item starts with. */
export const LOCAL_REFERENCE_PREFIX = 'LOCALREF#';

/** The partition of the persons whose root `local_reference_id` is `value` (see above). */
export const localReferencePartition = (value: string) => `${LOCAL_REFERENCE_PREFIX}${value}`;

/** Where person `id`'s reference item for its root `local_reference_id` `value` is stored. */
export const localReferenceKey = (value: string, id: number): Key => ({
  pk: localReferencePartition(value),
  sk: idDigits(id),
});

/** A feed shard's head: how many events it holds (API.md 14). */
export const feedHeadKey = (shard: number): Key => ({ pk: `FEED#${shard}`, sk: 'HEAD' });

/** Event `seq` (from 1) of feed shard `shard`. */
export const feedEventKey = (shard: number, seq: number): Key => ({
  pk: `FEED#${shard}`,
  sk: `EVENT#${String(seq).padStart(12, '0')}`,
});

/** What the partition key of every feed mark starts with. */
export const FEED_MARK_PREFIX = 'FEEDEVENT#';

/**
 * The mark that event `eventId` is in the feed: a ChangeHistory entry's id, or a duplicate pair's
 * `eventId` (from the same allocator, so the two never meet).
 */
export const feedMarkKey = (eventId: number): Key => ({
  pk: `${FEED_MARK_PREFIX}${eventId}`,
  sk: 'FEEDEVENT',
});

/**
 * A principal's binding to its person (API.md 9.1): keyed by the SHA-256 of its name (an ARN, or an
 * issuer URL with a subject, can be long and hold any character). Holds `personId` and the principal.
 */
export const principalKey = (principalName: string): Key => ({
  pk: `PRINCIPAL#${createHash('sha256').update(principalName).digest('hex')}`,
  sk: 'BINDING',
});

/** The other side of a binding: the one principal of person `id`. */
export const personPrincipalKey = (id: number): Key => ({
  pk: `${PERSON_PARTITION_PREFIX}${id}`,
  sk: 'PRINCIPAL',
});

/** What the sort key of every link from a survivor to a person merged into it starts with (see above). */
export const MERGED_FROM_SORT_KEY_PREFIX = 'MERGEDFROM#';

/** The survivor's link to person `sourceId`, merged into it (API.md 13; see above). */
export const mergedFromKey = (survivorId: number, sourceId: number): Key => ({
  pk: `${PERSON_PARTITION_PREFIX}${survivorId}`,
  sk: `${MERGED_FROM_SORT_KEY_PREFIX}${idDigits(sourceId)}`,
});

/** What the sort key of every link from a person to a stored keyed answer about it starts with. */
export const KEYED_ANSWER_SORT_KEY_PREFIX = 'KEYEDANSWER#';

/**
 * Person `id`'s link to the stored answer of a keyed write about it (API.md 5.6), by the answer's
 * record hash (`idempotencyKey`): how an erasure finds the answers that hold the person (API.md 15).
 */
export const keyedAnswerKey = (id: number, hash: string): Key => ({
  pk: `${PERSON_PARTITION_PREFIX}${id}`,
  sk: `${KEYED_ANSWER_SORT_KEY_PREFIX}${hash}`,
});

/** A person's postings that a write has not finished yet (see above). */
export const postingsPendingKey = (id: number): Key => ({
  pk: `${PERSON_PARTITION_PREFIX}${id}`,
  sk: 'POSTINGS',
});

/** Where backfill `run` of the postings (backfill.ts) keeps how far segment `segment` of `segments` came. */
export const backfillSegmentKey = (run: string, segment: number, segments: number): Key => ({
  pk: `BACKFILL#postings#${run}#${segments}`,
  sk: `SEGMENT#${segment}`,
});

/** The longest name part of an index sort key (DynamoDB allows 1024 bytes in all). */
const MAX_SORT_NAME_BYTES = 512;

/** Cuts a string to at most `bytes` of UTF-8, never inside a character. */
const utf8Prefix = (text: string, bytes: number) => {
  if (Buffer.byteLength(text) <= bytes) return text;
  let used = 0;
  let end = 0;
  for (const character of text) {
    used += Buffer.byteLength(character);
    if (used > bytes) break;
    end += character.length;
  }
  return text.slice(0, end);
};

/**
 * Where a person stands in the list: folded fullname (its first 512 bytes), then id. A filtered list
 * orders its matches by it without the partition (whose hash it need not pay for each match).
 */
export const listSortKey = (foldedFullname: string, id: number) =>
  `${listSortName(foldedFullname)}\u0001${idDigits(id)}`;

/** The name of `listSortKey`: the folded fullname without control characters, its first 512 bytes. */
export const listSortName = (foldedFullname: string) =>
  utf8Prefix(foldedFullname.replace(/\p{Cc}/gu, ''), MAX_SORT_NAME_BYTES);

/** Where a person stands in the `byName` index: its partition and `listSortKey`. */
export const personListKey = (foldedFullname: string, id: number) => ({
  listPk: personListPartition(id),
  listSk: listSortKey(foldedFullname, id),
});

/** A vocabulary is one small partition, read whole by its lists; entries sort by id. */
export const vocabularyPartition = (kind: VocabularyKind) => `VOCABULARY#${kind}`;

export const vocabularyKey = (kind: VocabularyKind, id: number): Key => ({
  pk: vocabularyPartition(kind),
  sk: `ENTRY#${pad(id)}`,
});

/**
 * An idempotency record (Powertools' idempotency utility), in a partition of its own: `hash` is the
 * SHA-256 (base64) of the key's scope, so no partition is shared by two keys and none is touched by
 * every keyed write, as Powertools' one static partition of a composite-key table would be.
 */
export const idempotencyKey = (hash: string): Key => ({ pk: `IDEMPOTENCY#${hash}`, sk: 'IDEMPOTENCY' });

/** A duplicate pair (API.md 12.1): the pair as it stands, by its id (`30863-41207`, lower id first). */
export const duplicatePairKey = (pairId: string): Key => ({ pk: `DUPPAIR#${pairId}`, sk: 'PAIR' });

/** Shards of each status and grade of the duplicates queue: no one partition takes every pair's write. */
export const DUPLICATE_QUEUE_SHARDS = 4;

/** A queue partition: the pairs of one status and grade whose id hashes to `shard`. */
export const duplicateQueuePartition = (status: string, grade: string, shard: number) =>
  `DUPQUEUE#${status}#${grade}#${shard}`;

/** The highest score a pair has (API.md 12.1: 0 to 100, one decimal). */
const MAX_SCORE_TENTHS = 1000;

/**
 * Where a pair stands in its queue partition: its score inverted (in tenths, 4 digits, so the best
 * comes first in the Query's ascending order), then its two ids (16 digits each), so that ties are in
 * `id` order and a position is a key a cursor can hold.
 */
export const duplicateQueueSortKey = (score: number, persons: readonly [number, number]) =>
  `${String(MAX_SCORE_TENTHS - Math.round(score * 10)).padStart(4, '0')}#${idDigits(persons[0])}#${idDigits(persons[1])}`;

/** A pair's entry in the queue: status, grade, a hash of the id, then its score order. */
export const duplicateQueueKey = (
  status: string,
  grade: string,
  score: number,
  persons: readonly [number, number],
): Key => ({
  pk: duplicateQueuePartition(status, grade, mixed(persons[0] ^ mixed(persons[1])) % DUPLICATE_QUEUE_SHARDS),
  sk: duplicateQueueSortKey(score, persons),
});

/** What a person's links to its duplicate pairs' partition key starts with. */
export const DUPLICATE_LINK_PREFIX = 'DUPLICATES#';

/** What a link's sort key starts with, before the other person's id (16 digits). */
export const DUPLICATE_LINK_SORT_PREFIX = 'PAIR#';

/** Person `personId`'s link to its pair with person `otherId`: how `person=` and a merge find its pairs. */
export const duplicateLinkKey = (personId: number, otherId: number): Key => ({
  pk: `${DUPLICATE_LINK_PREFIX}${personId}`,
  sk: `${DUPLICATE_LINK_SORT_PREFIX}${idDigits(otherId)}`,
});

/** How far `npm run duplicates -- --scan` came (lib/db/duplicates/scan-position.ts): its export cursor. */
export const duplicateScanKey: Key = { pk: 'DUPSCAN#persons', sk: 'POSITION' };

/** Every webhook subscription's partition (API.md 16): a handful of items, written only by their own routes. */
export const SUBSCRIPTION_PARTITION = 'SUBSCRIPTIONS';

/** What a subscription's sort key starts with, before its id. */
export const SUBSCRIPTION_SORT_PREFIX = 'SUBSCRIPTION#';

/** A webhook subscription, by its id (a UUID). */
export const subscriptionKey = (id: string): Key => ({
  pk: SUBSCRIPTION_PARTITION,
  sk: `${SUBSCRIPTION_SORT_PREFIX}${id}`,
});

/** What a subscription's own partition starts with: its lane and its delivery attempts. */
export const SUBSCRIPTION_LANE_PREFIX = 'SUBSCRIPTION#';

/** Where a subscription's deliveries stand: its position in the feed, its retries, its lease. */
export const subscriptionLaneKey = (id: string): Key => ({
  pk: `${SUBSCRIPTION_LANE_PREFIX}${id}`,
  sk: 'LANE',
});

/** What a delivery attempt's sort key starts with. */
export const DELIVERY_SORT_PREFIX = 'DELIVERY#';

/** The latest epoch millisecond a delivery's sort key inverts (year 2286): newer attempts sort first. */
const LAST_MS = 9_999_999_999_999;

/** One delivery attempt, newest first in its subscription's partition. */
export const deliveryKey = (id: string, atMs: number, eventId: number, attempt: number): Key => ({
  pk: `${SUBSCRIPTION_LANE_PREFIX}${id}`,
  sk: `${DELIVERY_SORT_PREFIX}${String(LAST_MS - atMs).padStart(13, '0')}#${idDigits(eventId)}#${attempt}`,
});
