//! The web pages behind the service's links (issue 17): headers, sign-in and CSRF, each flow
//! over form posts, the "no link leads to a 404" check, and the real-browser suite
//! (`browser.rs` runs `browser-tests/` with Chromium against this app on a loopback port).

mod accounts;
mod browser;
mod flows;
mod links;
