// Package dispatch delivers stored events (DESIGN §4) from inside the
// worker processes, without a workflow per event: the Dispatcher claims
// undispatched events in batches, makes the first attempt of each webhook
// delivery itself, hands failures to their webhook's retrier workflow,
// starts the pipeline runs events trigger, and marks events dispatched.
// Events stored by the same process are claimed at once (Notify); other
// processes leave a hint (Hinter) that dispatchers read every PollEvery;
// and every SweepEvery each customer is swept for events nobody claimed.
// Claims carry a lease, so several worker processes share the work and an
// event of a process that died is taken again.
package dispatch
