// Package webhook holds what the webhook declarations, the delivery
// activities and the tests share: collection names, deterministic ids, the
// delivery body, signatures (DESIGN §5), event-name matching and the rules
// for tenant-supplied headers. It has no I/O.
package webhook

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"platform/workflows/contract"
)

// Collections written for webhooks.
const (
	Collection           = "webhooks"
	DeliveriesCollection = "webhookdeliveries" // one record per attempt
	RetriesCollection    = "webhookretries"    // deliveries parked after their last attempt
)

// MinSecretLen is the shortest accepted secret (spec: Limits).
const MinSecretLen = 32

// Delivery outcomes as stored: how a round ended (the words the delivery
// workflow reports, see contract), and the states only records have.
const (
	StatusDelivered   = contract.StatusDelivered   // a 2xx answer
	StatusFailed      = "failed"                   // one attempt failed (attempt records)
	StatusParked      = contract.StatusParked      // every attempt failed; waits for a manual retry
	StatusRetrying    = "retrying"                 // a manual retry round runs
	StatusDeactivated = contract.StatusDeactivated // the receiver answered 410 Gone
	StatusSkipped     = contract.StatusSkipped     // the webhook was inactive or deleted when its turn came
)

// DeliveryID identifies the delivery of one event to one webhook. It is the
// X-Platform-Delivery and webhook-id header, the same for every attempt and
// every manual retry, so receivers can de-duplicate.
func DeliveryID(eventID, webhookID string) string {
	return eventID + "-" + webhookID
}

// RetryRecordID is the _id of a delivery's webhookretries record: derived
// from the delivery, so parking twice writes one record.
func RetryRecordID(deliveryID string) string {
	return hashID("retry/" + deliveryID)
}

// AttemptRecordID is the _id of one attempt's webhookdeliveries record;
// round 0 is the dispatch, round n the n-th manual retry.
func AttemptRecordID(deliveryID string, round, attempt int) string {
	return hashID(fmt.Sprintf("attempt/%s/%d/%d", deliveryID, round, attempt))
}

// hashID makes a record id (24 hex digits, the form of every platform id)
// from a name.
func hashID(name string) string {
	sum := sha256.Sum256([]byte(name))
	return hex.EncodeToString(sum[:12])
}

// MaxAttempts is the number of attempts of one delivery round (DESIGN §5).
const MaxAttempts = contract.MaxDeliveryAttempts
