//! The account pages over HTTP: sign-in with the API's cookies and rules, sign-out with the
//! CSRF token, the reset link from mail to a new password, cross-site posts refused, headers.

use crate::support::*;
use axum::http::StatusCode;

#[tokio::test]
async fn every_page_answers_html_with_the_security_headers() {
    let app = TestApp::new().await;
    for path in [
        "/",
        "/signin",
        "/signup",
        "/auth/forgot-password",
        "/auth/verified",
        "/join/sometoken",
    ] {
        let r = app.get(path).send().await;
        assert_page(&r, StatusCode::OK);
    }
    // Token pages with a bad token: an HTML page that says why, with the status the API has.
    assert_page(
        &app.get("/auth/reset-password?token=nope").send().await,
        StatusCode::UNAUTHORIZED,
    );
    assert_page(&app.get("/invite/nope").send().await, StatusCode::NOT_FOUND);
    assert_page(
        &app.get("/unsubscribe?token=nope").send().await,
        StatusCode::UNAUTHORIZED,
    );
    assert_page(
        &app.get("/profile/nope").send().await,
        StatusCode::NOT_FOUND,
    );
    let r = app
        .get("/club/0190f000-0000-7000-8000-000000000001")
        .send()
        .await;
    assert_page(&r, StatusCode::NOT_FOUND);
    let css = app.get("/assets/site.css").send().await;
    assert_eq!(css.status, StatusCode::OK);
    assert!(
        css.headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/css")
    );
}

#[tokio::test]
async fn pages_that_need_a_user_send_anonymous_visitors_to_sign_in_and_back() {
    let app = TestApp::new().await;
    for (path, next) in [
        ("/tv", "%2Ftv"),
        ("/tv?code=ABCD-EFGH", "%2Ftv%3Fcode%3DABCD-EFGH"),
        ("/settings/integrations", "%2Fsettings%2Fintegrations"),
    ] {
        let r = app.get(path).send().await;
        assert_eq!(r.status, StatusCode::SEE_OTHER, "{path}");
        assert_eq!(r.location(), format!("/signin?next={next}"));
    }
    // A forged cookie is nobody.
    let r = app
        .get("/tv")
        .header("cookie", "sc_session=scs_forged")
        .send()
        .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
}

#[tokio::test]
async fn sign_in_sets_the_api_session_and_goes_to_a_local_next_only() {
    let app = TestApp::new().await;
    app.signup("kai@example.com").await;
    let r = app
        .post("/signin")
        .form(&[
            ("email", "kai@example.com"),
            ("password", "wrong password"),
            ("next", "/tv"),
        ])
        .send()
        .await;
    assert_page(&r, StatusCode::UNAUTHORIZED);
    assert!(
        r.body.contains("The email or password is wrong"),
        "{}",
        r.body
    );
    assert!(r.cookie("sc_session").is_none());

    let r = app
        .post("/signin")
        .form(&[
            ("email", "kai@example.com"),
            ("password", PASSWORD),
            ("next", "//evil.example/"),
        ])
        .send()
        .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    assert_eq!(r.location(), "/", "no open redirect");
    let cookie = r.cookie("sc_session").expect("session cookie");
    let csrf = r.cookie("sc_csrf").expect("csrf cookie");
    // The same session works on the JSON API, with the same CSRF rule.
    let me = app
        .get("/api/auth/me")
        .header("cookie", &format!("sc_session={cookie}"))
        .send()
        .await;
    assert_eq!(me.status, StatusCode::OK);
    assert_eq!(me.json["user"]["email"], "kai@example.com");

    // Signing out needs the form's CSRF token (home sends a member on to their desk).
    let home = app
        .get("/")
        .header("cookie", &format!("sc_session={cookie}"))
        .send()
        .await;
    let home = app
        .get(&home.location())
        .header("cookie", &format!("sc_session={cookie}"))
        .send()
        .await;
    assert_page(&home, StatusCode::OK);
    assert_eq!(hidden(&home.body, "csrf"), csrf);
    let r = app
        .post("/signout")
        .header("cookie", &format!("sc_session={cookie}"))
        .form(&[("csrf", "forged")])
        .send()
        .await;
    assert_page(&r, StatusCode::FORBIDDEN);
    let r = app
        .post("/signout")
        .header("cookie", &format!("sc_session={cookie}"))
        .form(&[("csrf", &csrf)])
        .send()
        .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    let me = app
        .get("/api/auth/me")
        .header("cookie", &format!("sc_session={cookie}"))
        .send()
        .await;
    me.assert_error(StatusCode::UNAUTHORIZED, "invalid_token");
}

#[tokio::test]
async fn cross_site_form_posts_are_refused() {
    let app = TestApp::new().await;
    app.signup("kai@example.com").await;
    let r = app
        .post("/signin")
        .header("origin", "https://evil.example")
        .form(&[("email", "kai@example.com"), ("password", PASSWORD)])
        .send()
        .await;
    assert_page(&r, StatusCode::FORBIDDEN);
    assert!(r.cookie("sc_session").is_none());
    for (name, value) in [
        ("sec-fetch-site", "cross-site"),
        ("sec-fetch-site", "same-site"),
        ("origin", "null"),
    ] {
        let r = app
            .post("/signin")
            .header(name, value)
            .form(&[("email", "kai@example.com"), ("password", PASSWORD)])
            .send()
            .await;
        assert_page(&r, StatusCode::FORBIDDEN);
    }
    // What a browser sends from the page itself under no-referrer.
    let r = app
        .post("/signin")
        .header("origin", "null")
        .header("sec-fetch-site", "same-origin")
        .form(&[("email", "kai@example.com"), ("password", PASSWORD)])
        .send()
        .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    let r = app
        .post("/signin")
        .header("origin", BASE)
        .form(&[("email", "kai@example.com"), ("password", PASSWORD)])
        .send()
        .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
}

#[tokio::test]
async fn the_emailed_reset_link_leads_to_a_form_that_sets_the_password_once() {
    let app = TestApp::new().await;
    app.signup("kai@example.com").await;
    let r = app
        .post("/auth/forgot-password")
        .form(&[("email", "kai@example.com")])
        .send()
        .await;
    assert_page(&r, StatusCode::OK);
    let mail = wait_subject(&app, "kai@example.com", "Reset your password").await;
    let link = links_in(&mail.text_body())
        .into_iter()
        .find(|l| l.contains("reset_password"))
        .unwrap();
    let r = app.get(link.strip_prefix(BASE).unwrap()).send().await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    let landing = r.location();
    let form = app.get(landing.strip_prefix(BASE).unwrap()).send().await;
    assert_page(&form, StatusCode::OK);
    let token = hidden(&form.body, "token");
    // Errors are shown in the page; the token is not spent by them.
    let r = app
        .post("/auth/reset-password")
        .form(&[
            ("token", &token),
            ("password", "short"),
            ("confirm", "short"),
        ])
        .send()
        .await;
    assert_page(&r, StatusCode::BAD_REQUEST);
    assert!(r.body.contains("at least 10 characters"), "{}", r.body);
    let r = app
        .post("/auth/reset-password")
        .form(&[
            ("token", &token),
            ("password", "a new password 1"),
            ("confirm", "a new password 1"),
        ])
        .send()
        .await;
    assert_page(&r, StatusCode::OK);
    assert_eq!(
        app.signin("kai@example.com", "a new password 1")
            .await
            .status,
        StatusCode::OK
    );
    let r = app
        .post("/auth/reset-password")
        .form(&[
            ("token", &token),
            ("password", "another password"),
            ("confirm", "another password"),
        ])
        .send()
        .await;
    assert_page(&r, StatusCode::UNAUTHORIZED);
    assert!(r.body.contains("already used"), "{}", r.body);
}

#[test]
fn invite_tokens_never_reach_a_log_line() {
    use api::http::loggable_path;
    assert_eq!(loggable_path("/join/abc123"), "/join/{token}");
    assert_eq!(
        loggable_path("/invite/abc123/claim"),
        "/invite/{token}/claim"
    );
    assert_eq!(
        loggable_path("/api/invite/lookup/abc"),
        "/api/invite/lookup/{token}"
    );
    assert_eq!(
        loggable_path("/api/orgs/invite/abc/accept"),
        "/api/orgs/invite/{token}/accept"
    );
    assert_eq!(loggable_path("/api/invite/claim"), "/api/invite/claim");
    assert_eq!(loggable_path("/tv"), "/tv");
}
