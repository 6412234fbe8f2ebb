package channels

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"maps"
	"net/mail"
	"regexp"
	"strings"
	"time"

	"platform/kernel/events"
	"platform/kernel/store"
)

// InAppCollection holds the in-app notifications: one record per
// recipient and delivery, for the in-app notifier to list, mark read and
// push. Fields: user, title, body, event, eventName, route, channel,
// delivery, read (false when written), createdAt.
const InAppCollection = "inappnotifications"

// inapp writes the notification into InAppCollection, once per recipient
// (the record id derives from the delivery and the user, so a repeated
// attempt writes nothing new).
type inapp struct{}

var _ Kind = inapp{}

var userIDRE = regexp.MustCompile(`^[0-9a-f]{24}$`)

func init() { register(inapp{}) }

func (inapp) Name() string { return KindInApp }

func (inapp) Settings() []Setting {
	return []Setting{
		{Name: "recipients", Required: true, Type: TypeStrings, Check: each(func(s string) string {
			if !userIDRE.MatchString(s) {
				return s + " is not a user id"
			}
			return ""
		}), Description: "the ids of the users who get the notification"},
	}
}

func (inapp) Send(ctx context.Context, env *Env, t Target, m Message) error {
	if env.Store == nil {
		return &permanent{errors.New("inapp: no store in this process")}
	}
	coll := env.Store.Collection(InAppCollection)
	now := time.Now().UTC().Truncate(time.Millisecond)
	for _, user := range strs(t.Settings, "recipients") {
		doc := store.Doc{"user": user, "title": m.Subject, "body": m.Body, "event": m.EventID, "eventName": m.EventName,
			"route": m.Route, "channel": m.Channel, "delivery": m.DeliveryID}
		saved, err := coll.Upsert(ctx, InAppID(m.DeliveryID, user), store.Update{SetOnInsert: withRead(doc, now)})
		if err != nil {
			return err
		}
		if err := pushInApp(ctx, env.Store, saved); err != nil {
			return err
		}
	}
	return nil
}

// pushInApp hands the stored notification to the notifier (/notifier), which
// sends it to the user's connected clients on every API replica. A retried
// attempt pushes it again with the same notification _id (at least once;
// clients drop repeats by that id).
func pushInApp(ctx context.Context, st store.Store, saved store.Doc) error {
	data := maps.Clone(saved)
	delete(data, store.CustomerField)
	_, err := events.RecordPushOnly(ctx, st, events.InAppName, data)
	return err
}

func withRead(d store.Doc, now time.Time) store.Doc {
	d["read"], d["createdAt"], d["updatedAt"] = false, now, now
	return d
}

// InAppID is the id of a delivery's in-app notification of a user.
func InAppID(delivery, user string) string {
	return hashID("inapp", delivery, user)
}

func hashID(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:12])
}

// messageID is the Message-ID of a delivery's mail: the same for every
// attempt, so a receiver sees a repeated one as the same message.
func messageID(delivery, from string) string {
	domain := "platform.invalid"
	if a, err := mail.ParseAddress(from); err == nil {
		if i := strings.LastIndexByte(a.Address, '@'); i >= 0 {
			domain = a.Address[i+1:]
		}
	}
	if delivery == "" {
		return ""
	}
	return hashID("mail", delivery) + "@" + domain
}
