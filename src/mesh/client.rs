//! The crate's one HTTP client (SPEC §7): plain HTTP/1.1 to the mesh server named by
//! `MAJORDOMUS_SERVER_URL`, and nothing else. One request per connection, JSON bodies, a
//! bearer token, short timeouts: a server that is down or silent is an error in seconds,
//! never a hang. `https://` is refused with the fix (docs/MESH.md: put the TLS tunnel on
//! both ends, so the client talks to loopback).

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

pub use crate::model::mesh::ClientError;

/// How long connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// How long one exchange may take once connected.
const IO_TIMEOUT: Duration = Duration::from_secs(5);
/// The largest answer read.
const ANSWER_LIMIT: u64 = 4 * 1024 * 1024;

/// The server a client talks to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Server {
    /// As given, for messages (`http://host:port`).
    pub url: String,
    host: String,
    port: u16,
    token: Option<String>,
    connect_timeout: Duration,
    io_timeout: Duration,
}

impl Server {
    /// Parses `http://host[:port][/]`.
    pub fn parse(url: &str, token: Option<String>) -> Result<Server, ClientError> {
        let bad = |why: &str| ClientError::Url {
            url: url.to_owned(),
            why: why.to_owned(),
        };
        let trimmed = url.trim().trim_end_matches('/');
        if trimmed.starts_with("https://") {
            return Err(bad(
                "https is not spoken by majordomus's client; tunnel the TLS on this machine and name the loopback end (docs/MESH.md, \"Across machines\")",
            ));
        }
        let rest = trimmed
            .strip_prefix("http://")
            .ok_or_else(|| bad("expected http://<host>:<port>"))?;
        if rest.contains('/') || rest.contains('@') || rest.is_empty() {
            return Err(bad("expected http://<host>:<port> with no path or user"));
        }
        let (host, port) = match rest.rsplit_once(':') {
            Some((h, p)) if !h.ends_with(']') || h.starts_with('[') => (
                h.to_owned(),
                p.parse::<u16>()
                    .map_err(|_| bad("the port is not a number"))?,
            ),
            _ => (rest.to_owned(), 80),
        };
        Ok(Server {
            url: format!("http://{host}:{port}"),
            host,
            port,
            token: token.filter(|t| !t.trim().is_empty()),
            connect_timeout: CONNECT_TIMEOUT,
            io_timeout: IO_TIMEOUT,
        })
    }

    /// The same server with at most `limit` for connecting and for the exchange (a hook
    /// that must not keep its client waiting).
    pub fn quick(mut self, limit: Duration) -> Server {
        self.connect_timeout = limit;
        self.io_timeout = limit;
        self
    }

    /// GETs `path` and reads its JSON answer.
    pub fn get<T: DeserializeOwned>(&self, path: &str) -> Result<T, ClientError> {
        self.exchange("GET", path, None)
    }

    /// POSTs `body` as JSON to `path` and reads its JSON answer.
    pub fn post<B: Serialize, T: DeserializeOwned>(
        &self,
        path: &str,
        body: &B,
    ) -> Result<T, ClientError> {
        let bytes = serde_json::to_vec(body).expect("bodies serialise");
        self.exchange("POST", path, Some(&bytes))
    }

    fn unreachable(&self, why: impl std::fmt::Display) -> ClientError {
        ClientError::Unreachable {
            url: self.url.clone(),
            why: why.to_string(),
        }
    }

    fn garbled(&self, why: impl std::fmt::Display) -> ClientError {
        ClientError::Garbled {
            url: self.url.clone(),
            why: why.to_string(),
        }
    }

    fn exchange<T: DeserializeOwned>(
        &self,
        method: &str,
        path: &str,
        body: Option<&[u8]>,
    ) -> Result<T, ClientError> {
        let addrs: Vec<_> = (self.host.trim_matches(['[', ']']), self.port)
            .to_socket_addrs()
            .map_err(|e| self.unreachable(e))?
            .collect();
        let mut last = None;
        let mut stream = None;
        for addr in addrs {
            match TcpStream::connect_timeout(&addr, self.connect_timeout) {
                Ok(s) => {
                    stream = Some(s);
                    break;
                }
                Err(e) => last = Some(e),
            }
        }
        let mut stream = stream.ok_or_else(|| {
            self.unreachable(last.map_or_else(|| "no address".to_owned(), |e| e.to_string()))
        })?;
        let _ = stream.set_read_timeout(Some(self.io_timeout));
        let _ = stream.set_write_timeout(Some(self.io_timeout));
        let mut head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}:{}\r\nAccept: application/json\r\nConnection: close\r\nUser-Agent: majordomus/{}\r\n",
            self.host,
            self.port,
            env!("CARGO_PKG_VERSION")
        );
        if let Some(token) = &self.token {
            head.push_str(&format!("Authorization: Bearer {}\r\n", token.trim()));
        }
        if let Some(body) = body {
            head.push_str(&format!(
                "Content-Type: application/json\r\nContent-Length: {}\r\n",
                body.len()
            ));
        }
        head.push_str("\r\n");
        stream
            .write_all(head.as_bytes())
            .and_then(|()| stream.write_all(body.unwrap_or_default()))
            .map_err(|e| self.unreachable(e))?;
        let mut raw = Vec::new();
        stream
            .take(ANSWER_LIMIT)
            .read_to_end(&mut raw)
            .map_err(|e| self.unreachable(e))?;
        let (status, body) = parse_response(&raw).map_err(|why| self.garbled(why))?;
        let value: Value = serde_json::from_slice(&body).map_err(|e| self.garbled(e))?;
        if !(200..300).contains(&status) {
            let error = &value["error"];
            let text = |k: &str| error[k].as_str().map(str::to_owned);
            return Err(ClientError::Refused {
                url: self.url.clone(),
                status,
                rule: text("rule").unwrap_or_else(|| format!("http.{status}")),
                message: text("message").unwrap_or_else(|| format!("HTTP {status}")),
                fix: text("fix"),
            });
        }
        serde_json::from_value(value).map_err(|e| self.garbled(e))
    }
}

/// The status and the body of an HTTP/1.1 response (`Content-Length`, chunked, or up to
/// the end of the connection).
fn parse_response(raw: &[u8]) -> Result<(u16, Vec<u8>), String> {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or("no end of headers")?;
    let head = std::str::from_utf8(&raw[..split]).map_err(|_| "headers are not text")?;
    let rest = &raw[split + 4..];
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse::<u16>().ok())
        .ok_or("no status line")?;
    let mut chunked = false;
    let mut length = None;
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("transfer-encoding") && value.eq_ignore_ascii_case("chunked") {
            chunked = true;
        } else if name.eq_ignore_ascii_case("content-length") {
            length = value.parse::<usize>().ok();
        }
    }
    let body = if chunked {
        dechunk(rest)?
    } else if let Some(n) = length {
        rest.get(..n)
            .ok_or("the body is shorter than its length")?
            .to_vec()
    } else {
        rest.to_vec()
    };
    Ok((status, body))
}

fn dechunk(mut data: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    loop {
        let end = data
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or("a chunk has no size line")?;
        let size_text =
            std::str::from_utf8(&data[..end]).map_err(|_| "a chunk size is not text")?;
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
            .map_err(|_| "a chunk size is not hex")?;
        data = &data[end + 2..];
        if size == 0 {
            return Ok(out);
        }
        out.extend_from_slice(data.get(..size).ok_or("a chunk is cut short")?);
        data = data.get(size + 2..).ok_or("a chunk is cut short")?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse_and_https_is_refused_with_the_way_round() {
        let s = Server::parse("http://127.0.0.1:7777/", Some("t".into())).unwrap();
        assert_eq!(
            (s.host.as_str(), s.port, s.url.as_str()),
            ("127.0.0.1", 7777, "http://127.0.0.1:7777")
        );
        assert_eq!(Server::parse("http://mesh.example", None).unwrap().port, 80);
        assert!(
            matches!(Server::parse("https://mesh.example", None), Err(ClientError::Url { why, .. }) if why.contains("tunnel"))
        );
        for bad in [
            "mesh:7777",
            "http://a:b",
            "http://a:1/x",
            "http://u@a:1",
            "http://",
        ] {
            assert!(Server::parse(bad, None).is_err(), "{bad}");
        }
    }

    #[test]
    fn responses_parse_by_length_chunks_or_end() {
        let (s, b) = parse_response(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}xx").unwrap();
        assert_eq!((s, b.as_slice()), (200, b"{}".as_slice()));
        let (s, b) = parse_response(
            b"HTTP/1.1 409 Conflict\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{\"\r\n3\r\na\":\r\n2\r\n1}\r\n0\r\n\r\n",
        )
        .unwrap();
        assert_eq!((s, b.as_slice()), (409, b"{\"a\":1}".as_slice()));
        let (_, b) = parse_response(b"HTTP/1.0 200 OK\r\n\r\n[1]").unwrap();
        assert_eq!(b, b"[1]");
        assert!(parse_response(b"garbage").is_err());
    }

    #[test]
    fn a_server_that_is_down_is_unreachable_at_once() {
        // A port bound and dropped: nothing listens there now. The kernel refuses the
        // connection: the error is that refusal, not a timeout (nothing was waited for).
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let server = Server::parse(&format!("http://127.0.0.1:{port}"), None).unwrap();
        let err = server.get::<Value>("/api/v1/mesh/runtimes").unwrap_err();
        let ClientError::Unreachable { why, .. } = &err else {
            panic!("{err:?}");
        };
        assert!(why.contains("refused"), "{err:?}");
    }

    #[test]
    fn a_server_that_never_answers_is_unreachable_by_the_read_timeout() {
        // The kernel accepts into the backlog; nobody reads or answers. The exchange ends
        // on the client's own read timeout (an error the read gives once that timeout
        // passed), never on a wait of its own: what bounds a plan against a silent server.
        let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", silent.local_addr().unwrap());
        let server = Server::parse(&url, None)
            .unwrap()
            .quick(Duration::from_millis(200));
        let err = server.get::<Value>("/api/v1/mesh/runtimes").unwrap_err();
        let ClientError::Unreachable { why, .. } = &err else {
            panic!("{err:?}");
        };
        assert!(
            why.contains("temporarily unavailable") || why.contains("timed out"),
            "{err:?}"
        );
        drop(silent);
    }
}
