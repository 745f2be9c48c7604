// Package dynamo implements the store ports on Amazon DynamoDB. It is the store of the Lambda
// functions; its tests run it against dynalite.
//
// Every write is a single-item conditional write (PutItem, UpdateItem or DeleteItem with a
// ConditionExpression): no transactions and no batch writes, so every call works against
// dynalite and against a global table replica, and costs one write unit per KB. Times are stored
// as Unix milliseconds, UTC. Items that expire carry two attributes: exp_ms (milliseconds; what
// every condition and every read compares with the caller's time) and expires (whole epoch
// seconds, rounded up: the table's TTL attribute). TTL deletes lazily, up to days late, so an
// expired item that is still there is treated as absent everywhere.
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
//	                     account, added before the key is written), ver (the settings' version)
//	pk = "key#<hash>"    kind "key": key_id, acct, hash, prefix, last4, created_ms,
//	                     revoked_ms (absent while active), korder, last_used, and a copy of
//	                     the account's settings: a_region, a_tier, a_rate_limit, a_allowance,
//	                     a_disabled, a_usage_plan_key, a_created_ms, a_ver (accountcopy.go)
//	pk = "keyid#<id>"    kind "keyid": hash, account (reserves the key id, finds a key by id)
//
// and one global secondary index, by_account (partition key acct, sort key korder, all
// attributes), over the key items only: korder is the creation time (16 hex digits, sign bit
// flipped so that it sorts) + "#" + key id, so a Query lists an account's keys oldest first.
// The index is eventually consistent in DynamoDB, so nothing depends on it for correctness:
// ListKeys and RotateKey find an account's keys through key_ids (consistent reads) and add what
// the index lists only for keys the set lacks (accounts written before key_ids existed). The
// authorizer never reads it: it reads the key item by hash, which carries what it needs.
//
// idempotency (regional), pk = account, sk = idempotency key: fp, state ("in_flight" or
// "done"), lease, trace, lease_exp_ms, exp_ms, expires (TTL), month, slot and adm (where the run
// of the lease charges: the meter item of month, its writer slot, and the admission value its
// Enter wrote there). Records of the store before the meter may also be "settling" with
// settle_trace, settle_month, settle_chars. In a partition of its own, pk = "charged#" +
// account, sk = a lease: the proof that the lease's run was charged (exp_ms, expires: a day
// and an hour), written before another Store takes the writer slot that held the charge.
//
// usage (regional), pk = account, sk = month "YYYY-MM": the meter of the account in that month
// (meter.go): characters, runs, d01 to d31 (characters per UTC day), the rate window's counter
// "n:<minute, base 36>" (the current window's and the one before), and writer slots "w:<name>"
// (four random characters), about as many as requests were in flight at once. No TTL: usage is
// billing data. Items of older stores may hold "pending:<id>" markers, win_ms and win_count
// (removed by Settle), and writer slots with longer names (never taken, removed when stale).
//
// rate_windows (regional), pk = a key of the caller's (the dashboard: a client address's HMAC),
// sk = window start (N, Unix milliseconds): count, expires (TTL, five minutes after the start).
// Accounts' requests are counted on the meter instead.
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
// it. Each key item copies its account's settings, and UpdateAccount updates every copy before
// it returns (accountcopy.go), so a change of an account takes effect on its next request.
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
//   - UpdateAccount after the account item: some keys still copy the old settings; calling it
//     again (keyctl does on a retry) finishes the copies.
//
// A key being added while RotateKey runs (its id added after RotateKey read the set, or its
// items written after RotateKey resolved its id) is not revoked: it is newer than the
// rotation. Conditional writes on a global table are decided in the region that takes them;
// operators manage accounts from one region.
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
//   - UpdateAccount (SET under attribute_exists, and copies under a_ver < ver), RevokeKey
//     (if_not_exists) and the release of a key id (DELETE under its hash) are idempotent as
//     they are.
//   - Hit: the marker "hit:<random token>" is the hit's identity; a second write removes it.
//   - The meter (Enter, Settle): every write sets the request's writer slot to a value no other
//     request writes, under the condition that the slot still holds the value the writer saw
//     there (Enter) or its own admission (Settle): a write sent again finds its own value (see
//     meter.go). The proof written before a slot is taken is a plain PutItem of a fixed item.
//   - Claim: the lease is the identity. A refused PutItem whose record is in flight under the
//     claimer's own lease was written by an earlier attempt: the claim is won. A fence sent
//     again is refused by its own fence, which (like any value but the charge, with no proof)
//     means that the run was not charged.
//   - Release, the completion of a record and the clean-ups accept a refused condition as done.
//
// The store's client retries up to MaxAttempts times with a short full-jitter backoff
// (NewRetryer), so a few lost answers in a row cost milliseconds, not the request.
//
// # The meter, and the crash points of a run with a key
//
// A run writes its account's meter item once before its steps and once after them (meter.go):
// Enter counts the request in the rate window and reads the month's usage, setting the
// request's writer slot S to an admission value A; Settle ADDs the run's characters, one run
// and the day's characters and sets S to the charge C, under S = A and the allowance. With an
// Idempotency-Key the run also writes its record twice: Claim (a PutItem, after Enter, recording
// the meter's month, S and A) and, after the charge, its completion (state done, trace, under
// its lease).
//
// Writer slots are shared by every Store (every Lambda container); a request holds S from Enter
// to Leave. A Store owns the slots it wrote last and writes them again under the condition that
// they still hold its last value, so its requests cost nothing more. A Store that owns no free
// slot of the item (its first request for the account in the month) reads the item and takes
// a slot whose value was written two windows or more before by the writer's clock, judged on
// its own (no request still writes it: its deadline ends well inside two windows), at random
// among those, abandoned ones (five minutes) first, or makes a new name when there is none; the
// write is conditional on the value it saw (or on the name not existing), so two Stores never
// take one slot. A slot holding a keyed charge is taken only after the charge's proof item is
// written (putProof): the charge may belong to a record that was never completed; a Store whose
// role may not write the idempotency table (the services and dashboard functions') never takes
// one (it learns so from one AccessDeniedException) and makes a new name instead. So the item
// holds about as many slots as requests were in flight at once (more only while several
// containers took turns within two minutes), not one per container that ever served the
// account; a slot whose last write is older than five minutes (a day and an hour for a keyed
// charge) is also removed by a later Settle in the same write.
//
// Claim takes a record over when it is absent or expired (one conditional PutItem), and when
// it is in flight with an expired lease L: its run stopped (or stalled past its lease) before
// completing it, and may or may not have charged. Claim then writes a fence F into the run's
// slot S on the meter item of the record's month, under the condition that S holds A (a fence
// on the run's own value, never on the slot's name, so it cannot overwrite a request that took
// S since); exactly one of that write and the run's charge (which needs S = A) wins, because
// both are conditional writes on the one item:
//
//   - The fence won (S held A): L never charged and never will (its charge needs S = A).
//     Claim takes the record over with a PutItem under state = in_flight AND lease = L.
//   - S holds L's charge, or S holds anything else and L's proof item exists (S was taken
//     after the proof was written): L was charged. Claim marks the record done under the same
//     condition and returns it: the retry is a duplicate.
//   - S holds anything else and there is no proof: S went from A to a fence, or was removed
//     or taken as stale, never through L's charge (a charge's slot is taken only after its
//     proof); L never charged and never will. Claim takes the record over.
//
// Crash (or stall past the lease) at each point, with what happens to the run, the bill and the
// record:
//
//   - Before the charge: the record is in flight; after its lease a retry fences S and takes
//     over, and runs. If the old run wakes up, its charge finds the fence: ErrLeaseLost, no
//     charge. Billed once, by the retry.
//   - After the charge, before the completion: charged, record in flight, S holds the charge.
//     Within the lease a retry finds the record in flight, and Charged (one read of S) tells
//     that its charge holds, so the retry may answer as a duplicate; after it, Claim finds the charge,
//     marks the record done, and the retry is a duplicate. If the old run wakes up, its
//     completion finds the record done: nothing changes. Billed once, counted once.
//   - The completion failed (an error, not a crash): Settle returns ErrCharged and the Store
//     gives S up (S keeps the charge until a Claim reads it, or another Store takes S after
//     writing the proof); the caller leaves the record alone, and the next Claim after the
//     lease completes it as above.
//   - After the completion: done and charged; S is reused by the Store's next request, or
//     taken by another Store (with a proof that nobody will need) if this one stopped.
//
// No run is billed twice: a charge needs S = A, A is written once and never again (a random
// token), and S leaves A only for the charge itself, a fence, or (two windows after A, when the
// run is over) another request's value or nothing; a charge of a record that may be
// incomplete leaves S only by the owner's next request after the completion, or after its
// proof was written; and a record taken over was fenced first or found S without A, its charge
// and its proof. No run is billed without being
// counted: characters, runs and the day change in the charge's one write. A record stuck in
// flight past its 24 h expiry is simply absent, like any expired record.
//
// Records written "settling" by the store before the meter (whose Settle wrote the record
// first and marked the usage item with "pending:<lease>") are repaired as that store did: the
// claimer fences "pending:<lease>" on the usage item of settle_month; "charged" there makes the
// retry a duplicate. Such records can only exist for a day after the upgrade.
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
	// copyKey seals and checks key items' copies of account settings (accountcopy.go); nil:
	// this store seals nothing and trusts no copy.
	copyKey []byte
}

// Option configures a Store.
type Option func(*Store)

// WithCopyKey gives the store the key that seals key items' copies of their account's settings
// (at least 32 bytes). With it the store seals what it writes for accounts and trusts a copy
// only under a valid seal; without it, it seals nothing and KeyAccount always reads the account
// item too. The authorizer and keyctl have it; the dashboard never does.
func WithCopyKey(key []byte) Option {
	return func(s *Store) { s.copyKey = append([]byte(nil), key...) }
}

// New returns a Store on the tables t, which must exist (see CreateTables). The store uses a
// copy of client with its own retry policy (NewRetryer): its writes are safe to retry, and it
// relies on enough attempts to outlast a few lost answers.
func New(client *dynamodb.Client, t Tables, opts ...Option) *Store {
	s := &Store{db: withRetryPolicy(client), t: t, slots: newSlots()}
	for _, o := range opts {
		o(s)
	}
	return s
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

// itemKey is the key of an item with a partition and a sort key.
func itemKey(pk string, sk types.AttributeValue) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{attrPK: attrS(pk), attrSK: sk}
}
