//! A minimal SMTP server that accepts every message and keeps it in memory.
//!
//! Why: the app sends mail (invitations, password resets, notifications) through `lettre`'s
//! plain SMTP transport. Tests point that transport at an [`SmtpSink`] on a loopback port and
//! then read what was sent: who it went to, the subject, the decoded text body and the links
//! in it (for example to follow a password-reset link). No TLS, no auth: only what a
//! `builder_dangerous(host).port(port)` client needs, i.e. greeting, `EHLO`/`HELO`, `MAIL`,
//! `RCPT`, `DATA` (with dot-unstuffing), `RSET`, `NOOP` and `QUIT`, several messages per
//! connection and any number of concurrent connections.
//!
//! The MIME handling in [`Mail`] is deliberately small: enough to read what `lettre`'s message
//! builder produces (RFC 2047 encoded headers, folded headers, multipart bodies, quoted-printable
//! and base64 transfer encodings), not a general-purpose parser.

use std::collections::HashMap;
use std::io;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use base64::Engine as _;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tokio::task::{JoinHandle, JoinSet};

const HOST: &str = "127.0.0.1";

/// One message accepted by the sink.
#[derive(Clone, Debug)]
pub struct Mail {
    /// Envelope sender (`MAIL FROM`), without angle brackets; empty for the null sender `<>`.
    pub from: String,
    /// Envelope recipients (`RCPT TO`), without angle brackets, in the order given. These include
    /// `Bcc` recipients, which never appear in the headers.
    pub to: Vec<String>,
    /// The message exactly as sent after `DATA`, dot-unstuffed, with its CRLF line endings.
    pub raw: String,
}

#[derive(Default)]
struct Store {
    mails: Mutex<Vec<Mail>>,
    notify: Notify,
}

impl Store {
    fn lock(&self) -> MutexGuard<'_, Vec<Mail>> {
        self.mails.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// An SMTP server on `127.0.0.1:<random port>` that stores every message it receives.
///
/// The server runs on the current tokio runtime and stops (with all its connections) when the
/// sink is dropped.
pub struct SmtpSink {
    port: u16,
    store: Arc<Store>,
    server: JoinHandle<()>,
}

impl SmtpSink {
    /// Binds a free loopback port and starts accepting connections in a spawned task.
    ///
    /// # Panics
    /// If no loopback port can be bound.
    pub async fn start() -> SmtpSink {
        let listener = TcpListener::bind((HOST, 0))
            .await
            .expect("SmtpSink: bind 127.0.0.1:0");
        let port = listener
            .local_addr()
            .expect("SmtpSink: local address")
            .port();
        let store = Arc::new(Store::default());
        let server = tokio::spawn(accept_loop(listener, Arc::clone(&store)));
        SmtpSink {
            port,
            store,
            server,
        }
    }

    /// The host to give the SMTP client: always `"127.0.0.1"`.
    pub fn host(&self) -> &str {
        HOST
    }

    /// The port the sink listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Every message received so far, in the order the `DATA` commands completed.
    pub fn messages(&self) -> Vec<Mail> {
        self.store.lock().clone()
    }

    /// The messages with `addr` among their envelope recipients (compared case-insensitively).
    pub fn messages_to(&self, addr: &str) -> Vec<Mail> {
        self.store
            .lock()
            .iter()
            .filter(|m| m.is_to(addr))
            .cloned()
            .collect()
    }

    /// Waits until a message to `addr` has arrived and returns the first one.
    ///
    /// Mail is often sent by a background job, so tests wait for it instead of expecting it to
    /// be there already. Wakes on each delivered message (no polling).
    ///
    /// # Panics
    /// If no message to `addr` arrives within `timeout`; the message lists what did arrive.
    pub async fn wait_for(&self, addr: &str, timeout: Duration) -> Mail {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            // Register interest before looking, so a message stored in between is not missed.
            let notified = self.store.notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if let Some(mail) = self.messages_to(addr).into_iter().next() {
                return mail;
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                if let Some(mail) = self.messages_to(addr).into_iter().next() {
                    return mail;
                }
                let seen: Vec<String> = self
                    .messages()
                    .iter()
                    .map(|m| format!("to {:?} subject {:?}", m.to, m.subject()))
                    .collect();
                panic!(
                    "SmtpSink: no message to {addr:?} within {timeout:?}; received {} message(s): {seen:#?}",
                    seen.len()
                );
            }
        }
    }
}

impl Drop for SmtpSink {
    fn drop(&mut self) {
        self.server.abort();
    }
}

async fn accept_loop(listener: TcpListener, store: Arc<Store>) {
    // Connections live in this set, so aborting the accept task also closes them.
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                if let Ok((stream, _)) = accepted {
                    connections.spawn(serve_connection(stream, Arc::clone(&store)));
                }
            }
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
}

async fn serve_connection(stream: TcpStream, store: Arc<Store>) -> io::Result<()> {
    let (reader, mut writer) = stream.into_split();
    let mut reader = BufReader::new(reader);
    writer
        .write_all(b"220 127.0.0.1 ESMTP testkit sink ready\r\n")
        .await?;

    let mut from: Option<String> = None;
    let mut rcpts: Vec<String> = Vec::new();
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line).await? == 0 {
            return Ok(());
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        let (verb, arg) = match text.split_once(' ') {
            Some((verb, arg)) => (verb.to_ascii_uppercase(), arg.trim()),
            None => (text.to_ascii_uppercase(), ""),
        };
        let reply: String = match verb.as_str() {
            "EHLO" => {
                from = None;
                rcpts.clear();
                format!("250-127.0.0.1 greets {arg}\r\n250-8BITMIME\r\n250 SMTPUTF8\r\n")
            }
            "HELO" => {
                from = None;
                rcpts.clear();
                "250 127.0.0.1\r\n".into()
            }
            "MAIL" => match strip_keyword(arg, "FROM:").and_then(parse_path) {
                Some(sender) => {
                    from = Some(sender);
                    rcpts.clear();
                    "250 2.1.0 Ok\r\n".into()
                }
                None => "501 5.5.4 Syntax: MAIL FROM:<address>\r\n".into(),
            },
            "RCPT" => match (&from, strip_keyword(arg, "TO:").and_then(parse_path)) {
                (None, _) => "503 5.5.1 Need MAIL command first\r\n".into(),
                (Some(_), None) => "501 5.5.4 Syntax: RCPT TO:<address>\r\n".into(),
                (Some(_), Some(rcpt)) => {
                    rcpts.push(rcpt);
                    "250 2.1.5 Ok\r\n".into()
                }
            },
            "DATA" => match &from {
                None => "503 5.5.1 Need MAIL command first\r\n".into(),
                Some(_) if rcpts.is_empty() => "503 5.5.1 Need RCPT command first\r\n".into(),
                Some(sender) => {
                    writer
                        .write_all(b"354 End data with <CR><LF>.<CR><LF>\r\n")
                        .await?;
                    let Some(data) = read_data(&mut reader).await? else {
                        // Connection closed in the middle of DATA: the message is discarded.
                        return Ok(());
                    };
                    let mail = Mail {
                        from: sender.clone(),
                        to: std::mem::take(&mut rcpts),
                        raw: String::from_utf8_lossy(&data).into_owned(),
                    };
                    from = None;
                    let number = {
                        let mut mails = store.lock();
                        mails.push(mail);
                        mails.len()
                    };
                    store.notify.notify_waiters();
                    format!("250 2.0.0 Ok: queued as {number}\r\n")
                }
            },
            "RSET" => {
                from = None;
                rcpts.clear();
                "250 2.0.0 Ok\r\n".into()
            }
            "NOOP" => "250 2.0.0 Ok\r\n".into(),
            "VRFY" => "252 2.5.2 Cannot VRFY user\r\n".into(),
            "QUIT" => {
                writer.write_all(b"221 2.0.0 Bye\r\n").await?;
                writer.shutdown().await?;
                return Ok(());
            }
            _ => "502 5.5.2 Command not implemented\r\n".into(),
        };
        writer.write_all(reply.as_bytes()).await?;
    }
}

/// Reads the message after `354` up to the `.` line, undoing dot-stuffing. `None` on EOF.
async fn read_data<R: tokio::io::AsyncBufRead + Unpin>(
    reader: &mut R,
) -> io::Result<Option<Vec<u8>>> {
    let mut data = Vec::new();
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line).await? == 0 {
            return Ok(None);
        }
        if line == b".\r\n" || line == b".\n" {
            return Ok(Some(data));
        }
        let unstuffed = line.strip_prefix(b".").unwrap_or(&line);
        data.extend_from_slice(unstuffed);
    }
}

/// `FROM:<a@b> BODY=8BITMIME` with keyword `FROM:` gives `<a@b> BODY=8BITMIME`.
fn strip_keyword<'a>(arg: &'a str, keyword: &str) -> Option<&'a str> {
    let head = arg.get(..keyword.len())?;
    head.eq_ignore_ascii_case(keyword)
        .then(|| arg[keyword.len()..].trim_start())
}

/// The address in `<a@b> PARAMS...` (brackets optional, `<>` gives the empty string).
fn parse_path(arg: &str) -> Option<String> {
    if let Some(rest) = arg.strip_prefix('<') {
        let end = rest.find('>')?;
        Some(rest[..end].to_string())
    } else {
        let addr = arg.split_whitespace().next()?;
        Some(addr.to_string())
    }
}

impl Mail {
    fn is_to(&self, addr: &str) -> bool {
        self.to.iter().any(|t| t.eq_ignore_ascii_case(addr))
    }

    /// The first header called `name` (case-insensitive), unfolded, trimmed, with RFC 2047
    /// encoded words (`=?utf-8?b?...?=`, `=?utf-8?q?...?=`) decoded.
    pub fn header(&self, name: &str) -> Option<String> {
        let normalized = normalize_newlines(&self.raw);
        let (headers, _) = split_entity(&normalized);
        find_header(&headers, name).map(decode_encoded_words)
    }

    /// The decoded `Subject` header, or the empty string if there is none.
    pub fn subject(&self) -> String {
        self.header("Subject").unwrap_or_default()
    }

    /// The readable text of the message, with line endings normalized to `\n`.
    ///
    /// For a single-part message, its body; for a multipart one, the first `text/plain` part
    /// (searching nested multiparts), else the first other `text/*` part. Decoded from
    /// quoted-printable or base64 according to `Content-Transfer-Encoding`.
    pub fn text_body(&self) -> String {
        let normalized = normalize_newlines(&self.raw);
        entity_text(&normalized, true, &|mime| mime == "text/plain")
            .or_else(|| entity_text(&normalized, true, &|mime| mime.starts_with("text/")))
            .unwrap_or_default()
    }

    /// Every `http://` or `https://` URL in [`Mail::text_body`], in order.
    ///
    /// A URL ends at whitespace, `<`, `>`, `"` or `)`; trailing sentence punctuation
    /// (`.`, `,`, `;`, `:`, `!`, `?`, `'`) is not part of it.
    pub fn links(&self) -> Vec<String> {
        find_links(&self.text_body())
    }

    /// The first link whose text contains `needle`.
    pub fn link_containing(&self, needle: &str) -> Option<String> {
        self.links().into_iter().find(|l| l.contains(needle))
    }
}

fn normalize_newlines(s: &str) -> String {
    s.replace("\r\n", "\n")
}

/// Splits a MIME entity (LF line endings) into its unfolded headers and its body.
fn split_entity(entity: &str) -> (Vec<(String, String)>, &str) {
    let (head, body) = if let Some(body) = entity.strip_prefix('\n') {
        ("", body)
    } else {
        match entity.find("\n\n") {
            Some(i) => (&entity[..i], &entity[i + 2..]),
            None => (entity, ""),
        }
    };
    let mut headers: Vec<(String, String)> = Vec::new();
    for line in head.split('\n') {
        if line.starts_with([' ', '\t']) {
            // Unfolding removes only the line break; the leading whitespace stays.
            if let Some((_, value)) = headers.last_mut() {
                value.push_str(line);
            }
        } else if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_string(), value.to_string()));
        }
    }
    for (_, value) in &mut headers {
        *value = value.trim().to_string();
    }
    (headers, body)
}

fn find_header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// The text of the first entity accepted by `wanted` (given the lowercase MIME type); a
/// top-level single-part entity is always accepted.
fn entity_text(entity: &str, top_level: bool, wanted: &dyn Fn(&str) -> bool) -> Option<String> {
    let (headers, body) = split_entity(entity);
    let (mime, params) =
        parse_content_type(find_header(&headers, "Content-Type").unwrap_or("text/plain"));
    if mime.starts_with("multipart/") {
        let boundary = params.get("boundary")?;
        return multipart_parts(body, boundary)
            .into_iter()
            .find_map(|part| entity_text(part, false, wanted));
    }
    if !top_level && !wanted(&mime) {
        return None;
    }
    let encoding = find_header(&headers, "Content-Transfer-Encoding")
        .unwrap_or("7bit")
        .to_ascii_lowercase();
    let charset = params.get("charset").map_or("utf-8", String::as_str);
    Some(match encoding.as_str() {
        "quoted-printable" => bytes_to_string(charset, &decode_quoted_printable(body)),
        "base64" => match decode_base64_lenient(body) {
            Some(bytes) => normalize_newlines(&bytes_to_string(charset, &bytes)),
            None => body.to_string(),
        },
        _ => body.to_string(),
    })
}

/// `text/plain; charset="utf-8"` gives `("text/plain", {"charset": "utf-8"})`.
fn parse_content_type(value: &str) -> (String, HashMap<String, String>) {
    let mut pieces = Vec::new();
    let mut current = String::new();
    let mut in_quotes = false;
    let mut escaped = false;
    for c in value.chars() {
        if escaped {
            current.push(c);
            escaped = false;
        } else if in_quotes && c == '\\' {
            escaped = true;
        } else if c == '"' {
            in_quotes = !in_quotes;
        } else if c == ';' && !in_quotes {
            pieces.push(std::mem::take(&mut current));
        } else {
            current.push(c);
        }
    }
    pieces.push(current);
    let mime = pieces[0].trim().to_ascii_lowercase();
    let params = pieces[1..]
        .iter()
        .filter_map(|p| p.split_once('='))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    (mime, params)
}

/// The entities between `--boundary` delimiter lines, up to `--boundary--`.
fn multipart_parts<'a>(body: &'a str, boundary: &str) -> Vec<&'a str> {
    let delimiter = format!("--{boundary}");
    let closing = format!("--{boundary}--");
    let mut parts = Vec::new();
    let mut part_start: Option<usize> = None;
    let mut line_start = 0;
    while line_start <= body.len() {
        let line_end = body[line_start..]
            .find('\n')
            .map_or(body.len(), |i| line_start + i);
        let line = body[line_start..line_end].trim_end();
        let is_closing = line == closing;
        if is_closing || line == delimiter {
            if let Some(start) = part_start {
                // The line break before a delimiter belongs to the delimiter.
                let end = line_start.saturating_sub(1).max(start);
                parts.push(&body[start..end]);
            }
            if is_closing {
                return parts;
            }
            part_start = Some((line_end + 1).min(body.len()));
        }
        line_start = line_end + 1;
    }
    if let Some(start) = part_start {
        parts.push(&body[start..]);
    }
    parts
}

fn hex_value(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// Decodes `=XX` escapes (and `_` as a space in RFC 2047 `Q` words); a malformed `=` stays.
fn decode_q_escapes(input: &[u8], underscore_is_space: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len());
    let mut i = 0;
    while i < input.len() {
        match input[i] {
            b'=' => {
                let hi = input.get(i + 1).copied().and_then(hex_value);
                let lo = input.get(i + 2).copied().and_then(hex_value);
                if let (Some(hi), Some(lo)) = (hi, lo) {
                    out.push(hi << 4 | lo);
                    i += 3;
                    continue;
                }
                out.push(b'=');
            }
            b'_' if underscore_is_space => out.push(b' '),
            b => out.push(b),
        }
        i += 1;
    }
    out
}

/// Quoted-printable body (LF line endings): soft line breaks (`=` at end of line) are joined,
/// trailing whitespace on a line is dropped, `=XX` is decoded.
fn decode_quoted_printable(body: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len());
    let mut lines = body.split('\n').peekable();
    while let Some(line) = lines.next() {
        let line = line.trim_end_matches([' ', '\t', '\r']);
        let has_newline = lines.peek().is_some();
        if let Some(soft) = line.strip_suffix('=') {
            out.extend(decode_q_escapes(soft.as_bytes(), false));
        } else {
            out.extend(decode_q_escapes(line.as_bytes(), false));
            if has_newline {
                out.push(b'\n');
            }
        }
    }
    out
}

/// Base64 that tolerates line breaks and missing or present padding.
fn decode_base64_lenient(text: &str) -> Option<Vec<u8>> {
    let compact: String = text
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '=')
        .collect();
    base64::engine::general_purpose::STANDARD_NO_PAD
        .decode(compact)
        .ok()
}

fn bytes_to_string(charset: &str, bytes: &[u8]) -> String {
    match charset.trim().to_ascii_lowercase().as_str() {
        "iso-8859-1" | "iso8859-1" | "latin1" | "latin-1" => {
            bytes.iter().map(|&b| char::from(b)).collect()
        }
        _ => String::from_utf8_lossy(bytes).into_owned(),
    }
}

/// Parses an RFC 2047 encoded word at the start of `s` (`=?charset?B|Q?text?=`), giving the
/// charset, the decoded bytes and the number of bytes consumed.
fn parse_encoded_word(s: &str) -> Option<(String, Vec<u8>, usize)> {
    let inner = s.strip_prefix("=?")?;
    let (charset_field, rest) = inner.split_once('?')?;
    let (encoding, rest) = rest.split_once('?')?;
    let end = rest.find("?=")?;
    let text = &rest[..end];
    if charset_field.is_empty()
        || charset_field.contains(char::is_whitespace)
        || text.contains(char::is_whitespace)
    {
        return None;
    }
    let bytes = match encoding {
        "B" | "b" => decode_base64_lenient(text)?,
        "Q" | "q" => decode_q_escapes(text.as_bytes(), true),
        _ => return None,
    };
    let consumed = 2 + charset_field.len() + 1 + encoding.len() + 1 + end + 2;
    // RFC 2231 allows a language after the charset: `utf-8*en`.
    let charset = charset_field.split('*').next().unwrap_or_default();
    Some((charset.to_string(), bytes, consumed))
}

/// Decodes every RFC 2047 encoded word in a header value. Whitespace between adjacent encoded
/// words is dropped, and adjacent words in one charset are joined before decoding, so a
/// multi-byte character split across two words survives.
fn decode_encoded_words(value: &str) -> String {
    let mut out = String::new();
    let mut pending: Option<(String, Vec<u8>)> = None;
    let flush = |out: &mut String, pending: &mut Option<(String, Vec<u8>)>| {
        if let Some((charset, bytes)) = pending.take() {
            out.push_str(&bytes_to_string(&charset, &bytes));
        }
    };
    let mut rest = value;
    while let Some(i) = rest.find("=?") {
        let before = &rest[..i];
        match parse_encoded_word(&rest[i..]) {
            Some((charset, bytes, consumed)) => {
                let adjacent = pending.is_some() && before.chars().all(char::is_whitespace);
                match &mut pending {
                    Some((pending_charset, pending_bytes))
                        if adjacent && pending_charset.eq_ignore_ascii_case(&charset) =>
                    {
                        pending_bytes.extend(bytes);
                    }
                    _ => {
                        flush(&mut out, &mut pending);
                        if !adjacent {
                            out.push_str(before);
                        }
                        pending = Some((charset, bytes));
                    }
                }
                rest = &rest[i + consumed..];
            }
            None => {
                flush(&mut out, &mut pending);
                out.push_str(&rest[..i + 2]);
                rest = &rest[i + 2..];
            }
        }
    }
    flush(&mut out, &mut pending);
    out.push_str(rest);
    out
}

fn find_links(text: &str) -> Vec<String> {
    let mut links = Vec::new();
    let mut searched_to = 0;
    while let Some(offset) = text[searched_to..].find("http") {
        let start = searched_to + offset;
        let candidate = &text[start..];
        let scheme_len = if candidate.starts_with("https://") {
            8
        } else if candidate.starts_with("http://") {
            7
        } else {
            searched_to = start + 4;
            continue;
        };
        let len = candidate
            .find(|c: char| c.is_whitespace() || matches!(c, '<' | '>' | '"' | ')'))
            .unwrap_or(candidate.len());
        let link = candidate[..len].trim_end_matches(['.', ',', ';', ':', '!', '?', '\'']);
        if link.len() > scheme_len {
            links.push(link.to_string());
        }
        searched_to = start + len.max(scheme_len);
    }
    links
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};

    const WAIT: Duration = Duration::from_secs(5);

    /// A bare SMTP client speaking over a raw socket, so the sink is tested without `lettre`.
    struct Client {
        reader: BufReader<OwnedReadHalf>,
        writer: OwnedWriteHalf,
    }

    impl Client {
        async fn connect(sink: &SmtpSink) -> Client {
            let stream = TcpStream::connect((sink.host(), sink.port()))
                .await
                .unwrap();
            let (reader, writer) = stream.into_split();
            let mut client = Client {
                reader: BufReader::new(reader),
                writer,
            };
            let greeting = client.reply().await;
            assert!(greeting.starts_with("220 "), "greeting: {greeting}");
            client
        }

        /// Reads one (possibly multi-line) reply.
        async fn reply(&mut self) -> String {
            let mut all = String::new();
            loop {
                let mut line = String::new();
                assert_ne!(self.reader.read_line(&mut line).await.unwrap(), 0, "EOF");
                all.push_str(&line);
                if line.as_bytes().get(3) != Some(&b'-') {
                    return all;
                }
            }
        }

        async fn cmd(&mut self, line: &str) -> String {
            self.writer
                .write_all(format!("{line}\r\n").as_bytes())
                .await
                .unwrap();
            self.reply().await
        }

        async fn expect(&mut self, line: &str, code: &str) -> String {
            let reply = self.cmd(line).await;
            assert!(reply.starts_with(code), "{line} -> {reply}");
            reply
        }

        /// Sends one message; `message` uses `\n` line endings and is dot-stuffed here.
        async fn send(&mut self, from: &str, to: &[&str], message: &str) {
            self.expect(&format!("MAIL FROM:<{from}> BODY=8BITMIME"), "250")
                .await;
            for rcpt in to {
                self.expect(&format!("RCPT TO:<{rcpt}>"), "250").await;
            }
            self.expect("DATA", "354").await;
            let mut wire = String::new();
            for line in message.split('\n') {
                if line.starts_with('.') {
                    wire.push('.');
                }
                wire.push_str(line);
                wire.push_str("\r\n");
            }
            wire.push_str(".\r\n");
            self.writer.write_all(wire.as_bytes()).await.unwrap();
            let reply = self.reply().await;
            assert!(reply.starts_with("250 "), "end of DATA -> {reply}");
        }
    }

    #[tokio::test]
    async fn several_messages_on_one_connection_are_stored_in_order() {
        let sink = SmtpSink::start().await;
        let mut client = Client::connect(&sink).await;

        let ehlo = client.expect("EHLO client.test", "250").await;
        assert!(ehlo.contains("8BITMIME"), "{ehlo}");
        assert!(
            !ehlo.contains("STARTTLS") && !ehlo.contains("AUTH"),
            "{ehlo}"
        );

        client
            .send(
                "noreply@app.test",
                &["Coach@Example.com", "other@example.com"],
                "Subject: first\nTo: coach@example.com\n\nhello one",
            )
            .await;
        client.expect("NOOP", "250").await;
        client.expect("MAIL FROM:<ignored@app.test>", "250").await;
        client.expect("RCPT TO:<ignored@example.com>", "250").await;
        client.expect("RSET", "250").await;
        client
            .send("", &["athlete@example.com"], "Subject: second\n\nhello two")
            .await;
        let bye = client.cmd("QUIT").await;
        assert!(bye.starts_with("221"), "{bye}");

        let all = sink.messages();
        assert_eq!(all.len(), 2, "the reset transaction is not a message");
        assert_eq!(all[0].from, "noreply@app.test");
        assert_eq!(all[0].to, ["Coach@Example.com", "other@example.com"]);
        assert_eq!(all[0].subject(), "first");
        assert_eq!(all[0].text_body(), "hello one\n");
        assert_eq!(all[1].from, "");
        assert_eq!(all[1].subject(), "second");

        let to_coach = sink.messages_to("coach@EXAMPLE.com");
        assert_eq!(to_coach.len(), 1);
        assert_eq!(to_coach[0].subject(), "first");
        assert!(sink.messages_to("nobody@example.com").is_empty());
    }

    #[tokio::test]
    async fn commands_out_of_order_are_refused() {
        let sink = SmtpSink::start().await;
        let mut client = Client::connect(&sink).await;
        client.expect("HELO client.test", "250").await;
        client.expect("RCPT TO:<a@example.com>", "503").await;
        client.expect("DATA", "503").await;
        client.expect("MAIL FROM:<a@app.test>", "250").await;
        client.expect("DATA", "503").await;
        client.expect("MAIL TO:<a@app.test>", "501").await;
        client.expect("STARTTLS", "502").await;
        client.expect("QUIT", "221").await;
        assert!(sink.messages().is_empty());
    }

    #[tokio::test]
    async fn dot_stuffed_lines_are_unstuffed() {
        let sink = SmtpSink::start().await;
        let mut client = Client::connect(&sink).await;
        client.expect("EHLO client.test", "250").await;
        client
            .send(
                "a@app.test",
                &["b@example.com"],
                "Subject: dots\n\n.leading dot\n..two dots\n.\nend",
            )
            .await;
        let mail = sink.wait_for("b@example.com", WAIT).await;
        assert_eq!(
            mail.raw,
            "Subject: dots\r\n\r\n.leading dot\r\n..two dots\r\n.\r\nend\r\n"
        );
        assert_eq!(mail.text_body(), ".leading dot\n..two dots\n.\nend\n");
    }

    #[tokio::test]
    async fn quoted_printable_body_with_a_long_link_split_by_soft_breaks() {
        let sink = SmtpSink::start().await;
        let mut client = Client::connect(&sink).await;
        client.expect("EHLO client.test", "250").await;
        let message = "From: Surf Coach <noreply@app.test>\n\
            To: coach@example.com\n\
            Subject: =?utf-8?q?R=C3=A9initialiser_votre?=\n =?utf-8?b?IG1vdCBkZSBwYXNzZSDwn4+E?=\n\
            MIME-Version: 1.0\n\
            Content-Type: text/plain; charset=utf-8\n\
            Content-Transfer-Encoding: quoted-printable\n\
            \n\
            Caf=C3=A9 time! Reset your password: https://app.example.com/reset?token=3D=\n\
            abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz&next=3D%2F=\n\
            home.\n\
            Or see <http://app.example.com/help> (or https://app.example.com/faq)";
        client
            .send("noreply@app.test", &["coach@example.com"], message)
            .await;
        let mail = sink.wait_for("coach@example.com", WAIT).await;

        assert_eq!(mail.subject(), "Réinitialiser votre mot de passe 🏄");
        assert_eq!(
            mail.header("from").as_deref(),
            Some("Surf Coach <noreply@app.test>")
        );
        assert_eq!(mail.header("X-Missing"), None);
        let reset = "https://app.example.com/reset?token=abcdefghijklmnopqrstuvwxyz0123456789\
                     abcdefghijklmnopqrstuvwxyz&next=%2Fhome";
        assert!(mail.text_body().starts_with("Café time!"));
        assert_eq!(
            mail.links(),
            [
                reset,
                "http://app.example.com/help",
                "https://app.example.com/faq"
            ]
        );
        assert_eq!(mail.link_containing("/reset?").as_deref(), Some(reset));
        assert_eq!(mail.link_containing("/nowhere"), None);
    }

    #[tokio::test]
    async fn base64_text_part_of_a_multipart_message() {
        let sink = SmtpSink::start().await;
        let mut client = Client::connect(&sink).await;
        client.expect("EHLO client.test", "250").await;
        let text =
            "Welcome aboard!\nAccept the invitation: https://app.example.com/invite/42?k=v\n";
        let encoded = base64::engine::general_purpose::STANDARD.encode(text);
        let (first, second) = encoded.split_at(20);
        let message = format!(
            "Subject: Invitation\n\
             MIME-Version: 1.0\n\
             Content-Type: multipart/mixed;\n boundary=\"outer;1\"\n\
             \n\
             preamble\n\
             --outer;1\n\
             Content-Type: multipart/alternative; boundary=inner\n\
             \n\
             --inner\n\
             Content-Type: text/html; charset=utf-8\n\
             \n\
             <a href=\"https://app.example.com/html-only\">go</a>\n\
             --inner\n\
             Content-Type: text/plain; charset=utf-8\n\
             Content-Transfer-Encoding: base64\n\
             \n\
             {first}\n{second}\n\
             --inner--\n\
             --outer;1\n\
             Content-Type: application/pdf\n\
             Content-Transfer-Encoding: base64\n\
             \n\
             JVBERi0=\n\
             --outer;1--\n\
             epilogue"
        );
        client
            .send("noreply@app.test", &["coach@example.com"], &message)
            .await;
        let mail = sink.wait_for("coach@example.com", WAIT).await;
        assert_eq!(mail.text_body(), text);
        assert_eq!(mail.links(), ["https://app.example.com/invite/42?k=v"]);
    }

    #[tokio::test]
    async fn html_only_multipart_falls_back_to_the_html_part() {
        let sink = SmtpSink::start().await;
        let mut client = Client::connect(&sink).await;
        client.expect("EHLO client.test", "250").await;
        let message = "Subject: html\n\
            Content-Type: multipart/alternative; boundary=b\n\
            \n\
            --b\n\
            Content-Type: text/html\n\
            \n\
            <a href=\"https://app.example.com/x\">x</a>\n\
            --b--";
        client.send("a@app.test", &["c@example.com"], message).await;
        let mail = sink.wait_for("c@example.com", WAIT).await;
        assert_eq!(mail.links(), ["https://app.example.com/x"]);
    }

    #[tokio::test]
    async fn concurrent_connections_wake_a_waiting_test() {
        let sink = Arc::new(SmtpSink::start().await);
        let waiter = {
            let sink = Arc::clone(&sink);
            tokio::spawn(async move { sink.wait_for("late@example.com", WAIT).await })
        };
        let mut clients = JoinSet::new();
        for n in 0..5 {
            let sink = Arc::clone(&sink);
            clients.spawn(async move {
                let mut client = Client::connect(&sink).await;
                client.expect("EHLO client.test", "250").await;
                for m in 0..3 {
                    let rcpt = format!("user{n}@example.com");
                    let body = format!("Subject: {n}-{m}\n\nbody");
                    client.send("a@app.test", &[&rcpt], &body).await;
                }
                client.expect("QUIT", "221").await;
            });
        }
        while let Some(done) = clients.join_next().await {
            done.unwrap();
        }
        assert_eq!(sink.messages().len(), 15);
        assert_eq!(sink.messages_to("user3@example.com").len(), 3);

        let mut client = Client::connect(&sink).await;
        client.expect("EHLO client.test", "250").await;
        client
            .send("a@app.test", &["late@example.com"], "Subject: late\n\nx")
            .await;
        let mail = waiter.await.unwrap();
        assert_eq!(mail.subject(), "late");
    }

    #[tokio::test]
    #[should_panic(expected = "no message to \"absent@example.com\"")]
    async fn wait_for_panics_with_what_arrived_on_timeout() {
        let sink = SmtpSink::start().await;
        let mut client = Client::connect(&sink).await;
        client.expect("EHLO client.test", "250").await;
        client
            .send("a@app.test", &["present@example.com"], "Subject: hi\n\nx")
            .await;
        sink.wait_for("absent@example.com", Duration::from_millis(50))
            .await;
    }

    #[test]
    fn folded_headers_and_adjacent_encoded_words() {
        let mail = Mail {
            from: String::new(),
            to: Vec::new(),
            raw: "X-Long: one\r\n\ttwo\r\n  three\r\n\
                  Subject: =?UTF-8?B?8J+P?= =?utf-8?B?hA==?= and =?iso-8859-1?q?caf=E9?= =?bogus\r\n\
                  \r\nbody"
                .into(),
        };
        assert_eq!(mail.header("x-long").as_deref(), Some("one\ttwo  three"));
        assert_eq!(mail.subject(), "🏄 and café =?bogus");
        assert_eq!(mail.text_body(), "body");
    }
}
