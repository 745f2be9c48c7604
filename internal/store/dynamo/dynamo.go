// Package dynamo implements the store ports on Amazon DynamoDB. It is the store of the Lambda
// functions; its tests run it against dynalite.
//
// Every write is a single-item conditional write (PutItem, UpdateItem or DeleteItem with a
// ConditionExpression): no transactions and no batch writes, so every call works against
// dynalite and against a global table replica. Times are stored as Unix milliseconds, UTC.
// Items that expire carry two attributes: exp_ms (milliseconds; what every condition and every
// read compares with the caller's time) and expires (whole epoch seconds, rounded up: the
// table's TTL attribute). TTL deletes lazily, up to days late, so an expired item that is still
// there is treated as absent everywhere.
//
// # Tables
//
// Table names come from configuration (Tables); every table has a string partition key pk and,
// except accounts, a sort key sk. Attributes holding an empty string are left out.
//
// accounts (a global table: replicated to every region), key pk only, three kinds of items:
//
//	pk = "account#<id>"  kind "account": region, tier, rate_limit, allowance, disabled (BOOL),
//	                     usage_plan_key, created_ms, key_ids (SS: the id of every key of the
//	                     account, added before the key is written)
//	pk = "key#<hash>"    kind "key": key_id, acct, hash, prefix, last4, created_ms,
//	                     revoked_ms (absent while active), korder
//	pk = "keyid#<id>"    kind "keyid": hash, account (reserves the key id, finds a key by id)
//
// and one global secondary index, by_account (partition key acct, sort key korder, all
// attributes), over the key items only: korder is the creation time (16 hex digits, sign bit
// flipped so that it sorts) + "#" + key id, so a Query lists an account's keys oldest first.
// The index is eventually consistent in DynamoDB, so nothing depends on it for correctness:
// ListKeys and RotateKey find an account's keys through key_ids (consistent reads) and add what
// the index lists only for keys the set lacks (accounts written before key_ids existed). The
// authorizer never reads it: it reads the key item by hash.
//
// idempotency (regional), pk = account, sk = idempotency key: fp, state ("in_flight",
// "settling" or "done"), lease, trace, lease_exp_ms, exp_ms, expires (TTL), and while a
// settlement is under way settle_trace, settle_month, settle_chars.
//
// usage (regional), pk = account, sk = month "YYYY-MM": characters, runs, and one marker
// attribute "pending:<lease>" per settlement in progress: "charged" (the run of that lease was
// charged) or "fenced" (a claimer took the lease over; it may never charge). No TTL: usage is
// billing data.
//
// rate_windows (regional), pk = account, sk = window start (N, Unix milliseconds): count,
// expires (TTL, five minutes after the start).
//
// # Accounts and keys
//
// Every key's id is in its account's key_ids before its key-id and key items are written, so
// whoever reads the account item consistently finds every key whose creation has returned.
// CreateAccount writes the account item with key_ids = {first key's id} (attribute_not_exists),
// then the key-id item, then the key item (each attribute_not_exists). When the id or the hash
// exists it deletes what it wrote and returns ErrExists. AddKey ADDs the id to key_ids under
// attribute_exists(pk) (refused: ErrNotFound), then writes key id and key item the same way; a
// refused key (ErrExists) leaves its id in the set, because the id may be that of an existing
// key of the account (a retried call) and removing it would hide that key. RevokeKey finds the
// hash through the key-id item and sets revoked_ms with if_not_exists (the first time stays).
// RotateKey adds the new key first, then reads key_ids (consistent), resolves each other id
// through its key-id item to its key item (consistent reads), adds the keys the index lists,
// and revokes every active one as RevokeKey does. An id whose key-id item or key item is
// missing, or belongs to another account or key id, is skipped: no key authenticates through
// it.
//
// Crash points, each leaving nothing that authenticates without being revocable:
//
//   - CreateAccount after the account item: an account without a key, its key_ids naming an id
//     with no key-id item. After the key-id item: a key-id item pointing at no key. Neither
//     authenticates anything (the authorizer needs the key item, written last).
//   - AddKey after the ADD: an id in key_ids with no key-id item (skipped by ListKeys and
//     RotateKey; AddKey with the same id later succeeds). After the key-id item: as above.
//   - RotateKey after adding the new key: the old keys stay active, never the account without
//     one; RevokeKey or another RotateKey finishes the job. Part-way through the revocations:
//     some old keys revoked, the same.
//
// A key being added while RotateKey runs (its id added after RotateKey read the set, or its
// items written after RotateKey resolved its id) is not revoked: it is newer than the
// rotation. Conditional writes on a global table are decided in the region that takes them;
// operators manage accounts from one region.
//
// # Rate windows
//
// Hit is one UpdateItem: ADD count 1 and SET a marker attribute "hit:<random token>" under the
// condition (attribute_not_exists(count) OR count < limit) AND attribute_not_exists(marker),
// ReturnValues UPDATED_NEW; then a second UpdateItem removes the marker. A refused hit changes
// nothing and reports count = limit (the window is full).
//
// # Lost answers
//
// A conditional write can reach DynamoDB and its answer be lost; the SDK then sends it again,
// and the second attempt meets the first one's effect. Every write of this package is safe to
// repeat, because each carries its writer's identity and a refused condition is resolved by a
// consistent read that recognises the writer's own earlier write (dynalite does not return
// ALL_OLD on a failed condition, so nothing relies on it):
//
//   - CreateAccount: the account item is ours when its key_ids holds our first key's id and its
//     created_ms is ours; the key-id item when it names our hash and account (and the hash's
//     key item is missing or ours); the key item when it has our key id, account and
//     created_ms. A repeat of a whole call that succeeded therefore succeeds too, and the port
//     says so for every adapter. AddKey likewise; its ADD to key_ids is idempotent.
//   - UpdateAccount (SET under attribute_exists), RevokeKey (if_not_exists) and the release of
//     a key id (DELETE under its hash) are idempotent as they are.
//   - Hit: the marker is the hit's identity. When a hit is refused after the SDK retried, a read
//     of the window tells whether the marker is there, that is whether an earlier attempt was
//     the one that counted (admitted, with the window's count). A refusal on the first and only
//     attempt needs no read. A marker left by a crash before the clean-up costs a few bytes
//     until the window item expires.
//   - Claim: the lease is the identity. A refused PutItem whose record is in flight under the
//     claimer's own lease was written by an earlier attempt: the claim is won.
//   - Settle: the charge sets the marker "pending:<lease>" (with an idempotency key) or
//     "pending:<trace id>" (without) under attribute_not_exists of that marker, so a retry finds
//     "charged" and does not charge again; Settle with a key then completes the record as
//     below, and without one removes the marker (best effort: a leftover marker is never read
//     again; trace ids are unique). The other steps are conditional on the lease and accept
//     their own effect (settling in the same month, done, in flight after a revert).
//   - Release, the fence and the clean-ups accept a refused condition as done.
//
// The store's client retries up to MaxAttempts times with a short full-jitter backoff
// (NewRetryer), so a few lost answers in a row cost milliseconds, not the request.
//
// # Settle and Claim: the crash points
//
// store.Ledger wants the charge and the completion of the idempotency record in one step.
// DynamoDB (and dynalite) give one item per atomic write, so Settle with an idempotency key is
// a sequence in which the usage item carries the proof of the charge. With lease L, key K,
// month M and n characters:
//
//  1. idempotency item: SET state = "settling", settle_trace, settle_month = M, settle_chars =
//     n, under lease = L AND (state = "in_flight" OR (state = "settling" AND settle_month = M)).
//     Refused: ErrLeaseLost, nothing charged. (Accepting "settling" lets a retried call
//     continue its own settlement.)
//  2. usage item (account, M): ADD characters n, runs 1 and SET "pending:L" = "charged", under
//     (attribute_not_exists(characters) OR characters <= limit - n) AND
//     attribute_not_exists("pending:L"). When it is refused, a consistent read tells why:
//     "pending:L" = "charged": this lease was charged already (a retried call): go on to 3;
//     "pending:L" = "fenced": a claimer took the lease over: ErrLeaseLost, nothing charged;
//     otherwise the limit: put the record back (SET state = "in_flight" under lease = L AND
//     state = "settling") and return admitted=false with the usage as read.
//  3. idempotency item: SET state = "done", trace, under lease = L AND state is "settling" or
//     "done".
//  4. usage item: REMOVE "pending:L" under attribute_exists("pending:L") (best effort: it only
//     keeps the item small).
//
// Claim takes over an idempotency record only when it is absent, expired, or in flight with an
// expired lease (one conditional PutItem). A live record that is "settling" is returned as in
// flight. A "settling" record whose lease has expired belonged to a run that stopped between 1
// and 3; Claim repairs it before anything else: on the usage item of settle_month it writes
// "pending:L" = "fenced" under attribute_not_exists("pending:L"). Exactly one of step 2 and
// this fence succeeds for lease L, because both are conditional writes on the same item.
//
//   - The fence won (or a marker "fenced" is there already): L never charged and never will.
//     Claim takes the record over with a PutItem under state = "settling" AND lease = L.
//   - "pending:L" = "charged": L was charged. Claim marks the record done (trace =
//     settle_trace, lease L kept) under state = "settling" AND lease = L, and returns it: the
//     retry is a duplicate.
//
// Crash (or stall past the lease) at each point, with what happens to the run, the bill and the
// record:
//
//   - Before 1: the record is in flight; after its lease a retry takes it over and runs. If the
//     old run wakes up, its step 1 fails (lease changed): ErrLeaseLost, no charge. Billed once,
//     by the retry.
//   - Between 1 and 2: the record is settling, nothing charged. After the lease, a retry's
//     Claim fences L (no "pending:L" yet) and takes over; the retry runs and is billed. If the
//     old run wakes up, its step 2 finds "pending:L" = "fenced": ErrLeaseLost, no charge. If
//     the old run charges first, the fence fails and Claim marks the record done instead (next
//     case). Billed once.
//   - Step 2 refused by the limit, then a crash before the record is put back: as between 1
//     and 2 (nothing charged, the fence wins).
//   - Between 2 and 3: charged, record settling, "pending:L" = "charged". Within the lease a
//     retry gets idempotency_key_in_use; after it, Claim finds the marker, marks the record
//     done with the run's trace, and the retry is a duplicate. If the old run wakes up, step 3
//     succeeds too (same lease, same trace). Billed once, counted once.
//   - Between 3 and 4: done and charged; the marker stays in the month's usage item (a few
//     bytes, never read again: a done record is never repaired).
//   - In Claim, between the fence and the takeover: the record is still settling with L, its
//     lease expired, "pending:L" = "fenced"; the next Claim finds the marker and takes over.
//     Between finding "charged" and marking done: the next Claim does the same again.
//
// No run is billed twice: a charge needs "pending:L" absent and sets it; the marker is removed
// only after the record is done, and a done record is never charged again (step 1 refuses it)
// nor taken over before it expires; a lease taken over from a settling record is fenced
// first, and one taken over in flight can no longer pass step 1. No run is billed without
// being counted: characters and runs change in the same write as the marker, and a charged
// lease always ends "done" with its own trace (step 3, or Claim's repair), so a retry never
// runs again. A record stuck "settling" past its 24 h expiry is simply absent,
// like any expired record. The cost: a settlement with a key takes three writes (four with the
// clean-up) instead of one.
//
// An error (rather than a crash) after step 2 is the same as a crash there: Settle returns the
// error, the run is charged, and the record is repaired by the next Claim after the lease. A
// lost answer retried by the SDK is harmless at every step: step 1 accepts its own settling
// record, step 2 finds its own "charged" marker, steps 3 and 4 are conditional on the lease.
//
// Why the fence: without it, a run that stalls past its lease between steps 1 and 2 (not
// crashed, only slow) could charge after a retry took the record over, and both runs would be
// billed. Why markers are top-level attributes ("pending:<lease>") and not entries of one map:
// SET on a path inside a map fails when the map does not exist yet, and no single condition
// could create it and test an entry.
//
// Settle without a key is step 2 with the marker "pending:<trace id>" and step 4: it has no
// crash point (the charge and its marker are one write), and a retried charge finds its marker
// (see Lost answers), so an unkeyed run is charged once. The cost of that identity: a second
// write to remove the marker, for runs with and without a key, and for every admitted hit.
package dynamo

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sluice-api/sluice/internal/store"
	"github.com/sluice-api/sluice/internal/store/dynamo/layout"
)

var _ store.Store = (*Store)(nil)

// Tables names the tables of the store.
type Tables struct {
	Accounts    string // global table: accounts and API keys
	Idempotency string // regional
	Usage       string // regional
	RateWindows string // regional
	// Sessions (regional) holds the dashboard's sign-in links and sessions; only the dashboard
	// and keyctl use it, so it may be empty elsewhere.
	Sessions string
}

// TablesWithPrefix returns the conventional names prefix+"accounts", prefix+"idempotency",
// prefix+"usage", prefix+"rate_windows" and prefix+"sessions".
func TablesWithPrefix(prefix string) Tables {
	return Tables{
		Accounts:    prefix + "accounts",
		Idempotency: prefix + "idempotency",
		Usage:       prefix + "usage",
		RateWindows: prefix + "rate_windows",
		Sessions:    prefix + "sessions",
	}
}

// Store is the DynamoDB store. It is safe for concurrent use; any number of Stores (in one
// process or in many Lambda containers) may share the tables.
type Store struct {
	db    *dynamodb.Client
	t     Tables
	slots *slots // the writer slots of the meter item (meter.go)
}

// New returns a Store on the tables t, which must exist (see CreateTables). The store uses a
// copy of client with its own retry policy (NewRetryer): its writes are safe to retry, and it
// relies on enough attempts to outlast a few lost answers.
func New(client *dynamodb.Client, t Tables) *Store {
	return &Store{db: withRetryPolicy(client), t: t, slots: newSlots()}
}

// Close does nothing: the client has nothing to release.
func (s *Store) Close() error { return nil }

// Attribute and index names.
const (
	attrPK = layout.PK
	attrSK = "sk"
	// attrTTL is the TTL attribute of every table with expiring items (epoch seconds).
	attrTTL = "expires"
	// attrExpMS is when an item becomes absent, in milliseconds; conditions compare it.
	attrExpMS = "exp_ms"
	// indexByAccount lists an account's keys.
	indexByAccount = "by_account"
	attrAcct       = "acct"
	attrKOrder     = "korder"
)

// tableSpec is what CreateTables creates.
type tableSpec struct {
	name    string
	sk      types.ScalarAttributeType // "" for no sort key
	ttl     bool
	byAcct  bool
	purpose string
}

func (s *Store) specs() []tableSpec {
	specs := []tableSpec{
		{name: s.t.Accounts, byAcct: true, purpose: "accounts"},
		{name: s.t.Idempotency, sk: types.ScalarAttributeTypeS, ttl: true, purpose: "idempotency"},
		{name: s.t.Usage, sk: types.ScalarAttributeTypeS, purpose: "usage"},
		{name: s.t.RateWindows, sk: types.ScalarAttributeTypeN, ttl: true, purpose: "rate windows"},
	}
	if s.t.Sessions != "" {
		specs = append(specs, sessionsSpec(s.t.Sessions))
	}
	return specs
}

// CreateTables creates the tables that do not exist yet (on-demand billing, with their keys,
// index and TTL attribute) and waits until all are ACTIVE. It is meant for tests and for
// local mode; deployed tables are created by the infrastructure code with the same layout.
func (s *Store) CreateTables(ctx context.Context) error {
	for _, sp := range s.specs() {
		if err := s.createTable(ctx, sp); err != nil {
			return err
		}
	}
	w := dynamodb.NewTableExistsWaiter(s.db, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay = 20 * time.Millisecond
		o.MaxDelay = time.Second
	})
	for _, sp := range s.specs() {
		if err := w.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(sp.name)}, 2*time.Minute); err != nil {
			return fmt.Errorf("dynamo: wait for %s table %q: %w", sp.purpose, sp.name, err)
		}
	}
	return nil
}

func (s *Store) createTable(ctx context.Context, sp tableSpec) error {
	in := &dynamodb.CreateTableInput{
		TableName:            aws.String(sp.name),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String(attrPK), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String(attrPK), KeyType: types.KeyTypeHash}},
	}
	if sp.sk != "" {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String(attrSK), AttributeType: sp.sk})
		in.KeySchema = append(in.KeySchema, types.KeySchemaElement{AttributeName: aws.String(attrSK), KeyType: types.KeyTypeRange})
	}
	if sp.byAcct {
		in.AttributeDefinitions = append(in.AttributeDefinitions,
			types.AttributeDefinition{AttributeName: aws.String(attrAcct), AttributeType: types.ScalarAttributeTypeS},
			types.AttributeDefinition{AttributeName: aws.String(attrKOrder), AttributeType: types.ScalarAttributeTypeS})
		in.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{{
			IndexName: aws.String(indexByAccount),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String(attrAcct), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String(attrKOrder), KeyType: types.KeyTypeRange},
			},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}}
	}
	_, err := s.db.CreateTable(ctx, in)
	var inUse *types.ResourceInUseException
	if errors.As(err, &inUse) {
		return nil // exists already (or is being created by someone else)
	}
	if err != nil {
		return fmt.Errorf("dynamo: create %s table %q: %w", sp.purpose, sp.name, err)
	}
	if !sp.ttl {
		return nil
	}
	_, err = s.db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName: aws.String(sp.name),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{
			AttributeName: aws.String(attrTTL),
			Enabled:       aws.Bool(true),
		},
	})
	if err != nil && !unknownOperation(err) {
		return fmt.Errorf("dynamo: enable TTL on %s table %q: %w", sp.purpose, sp.name, err)
	}
	return nil
}

// unknownOperation reports an API the server does not implement (dynalite has no TTL
// operations; expired items are ignored by every read anyway).
func unknownOperation(err error) bool {
	var api interface{ ErrorCode() string }
	return errors.As(err, &api) && api.ErrorCode() == "UnknownOperationException"
}

// conditionFailed reports whether err is a refused ConditionExpression.
func conditionFailed(err error) bool {
	var ccf *types.ConditionalCheckFailedException
	return errors.As(err, &ccf)
}

// Attribute values.

func attrS(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func attrN(v int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
}

func attrBool(v bool) types.AttributeValue { return &types.AttributeValueMemberBOOL{Value: v} }

// setS sets item[name] to v unless v is empty.
func setS(item map[string]types.AttributeValue, name, v string) {
	if v != "" {
		item[name] = attrS(v)
	}
}

// ms is how a time is stored.
func ms(t time.Time) int64 { return t.UnixMilli() }

// fromMS is how a stored time comes back.
func fromMS(v int64) time.Time { return time.UnixMilli(v).UTC() }

// ttlSeconds is the TTL attribute value for an item absent from expMS on: rounded up, so TTL
// never deletes an item that is still live.
func ttlSeconds(expMS int64) int64 { return (expMS + 999) / 1000 }

// decoder reads attributes of one item and remembers the first malformed one.
type decoder struct {
	item map[string]types.AttributeValue
	err  error
}

func (d *decoder) fail(name, want string) {
	if d.err == nil {
		d.err = fmt.Errorf("attribute %q is not %s", name, want)
	}
}

// has reports whether the item holds name.
func (d *decoder) has(name string) bool {
	_, ok := d.item[name]
	return ok
}

// str returns a string attribute; "" when absent.
func (d *decoder) str(name string) string {
	v, ok := d.item[name]
	if !ok {
		return ""
	}
	s, ok := v.(*types.AttributeValueMemberS)
	if !ok {
		d.fail(name, "a string")
		return ""
	}
	return s.Value
}

// num returns a number attribute; 0 when absent.
func (d *decoder) num(name string) int64 {
	v, ok := d.item[name]
	if !ok {
		return 0
	}
	n, ok := v.(*types.AttributeValueMemberN)
	if !ok {
		d.fail(name, "a number")
		return 0
	}
	i, err := strconv.ParseInt(n.Value, 10, 64)
	if err != nil {
		d.fail(name, "an integer")
		return 0
	}
	return i
}

// strSet returns a string-set attribute; nil when absent.
func (d *decoder) strSet(name string) []string {
	v, ok := d.item[name]
	if !ok {
		return nil
	}
	ss, ok := v.(*types.AttributeValueMemberSS)
	if !ok {
		d.fail(name, "a string set")
		return nil
	}
	return ss.Value
}

// boolean returns a BOOL attribute; false when absent.
func (d *decoder) boolean(name string) bool {
	v, ok := d.item[name]
	if !ok {
		return false
	}
	b, ok := v.(*types.AttributeValueMemberBOOL)
	if !ok {
		d.fail(name, "a boolean")
		return false
	}
	return b.Value
}

// time returns a millisecond time attribute; the zero time when absent.
func (d *decoder) time(name string) time.Time {
	if !d.has(name) {
		return time.Time{}
	}
	return fromMS(d.num(name))
}
