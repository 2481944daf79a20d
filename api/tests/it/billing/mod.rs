//! Billing (issue 13): the platform subscription, seats, the marketplace and the payment
//! webhook, against the fake payment processor.

mod marketplace;
mod seats;
mod subscribe;
mod webhook;
mod webhook_batch;
