//! The stdio framing in front of rmcp: one JSON-RPC message per line, and an answer for
//! every line that is not one (SPEC §9). rmcp's own stdio transport drops a line that is
//! not JSON, or longer than its limit, without a word; a client then waits forever. Here
//! each line is classified first:
//!
//! - not UTF-8, not JSON (a lone surrogate escape included): `-32700` parse error;
//! - nested deeper than the parser goes, longer than [`MAX_LINE`], JSON that is not a
//!   JSON-RPC 2.0 message object (a batch, a number, no `jsonrpc: "2.0"`, an id that is
//!   neither a string nor a number, a method that is not a string): `-32600` invalid
//!   request;
//! - a request whose params do not decode (`tools/call` with `arguments` that are not an
//!   object, among others): `-32602` invalid params, with the request's id;
//!
//! and the server goes on reading. What is a message goes to rmcp unchanged.

use std::borrow::Cow;
use std::io::{BufRead, Write};
use std::sync::{Arc, Mutex};

use rmcp::RoleServer;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Value, json};

/// The longest line read (16 MiB, rmcp's own limit): a longer one is answered `-32600`
/// and skipped, never buffered whole.
pub const MAX_LINE: usize = 16 * 1024 * 1024;

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const INVALID_PARAMS: i64 = -32602;

/// What one line of input is.
#[derive(Debug)]
pub enum Line {
    /// A message for rmcp.
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// An answer to write back (a JSON-RPC error response).
    Answer(Value),
    /// Nothing to do (an empty line; a notification whose params do not decode, which
    /// JSON-RPC answers with nothing).
    Nothing,
}

fn error(id: Value, code: i64, message: String) -> Line {
    Line::Answer(json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": message},
    }))
}

/// Classifies one line (without its newline).
pub fn classify(line: &[u8]) -> Line {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Line::Nothing;
    }
    let text = match std::str::from_utf8(line) {
        Ok(text) => text,
        Err(e) => {
            return error(
                Value::Null,
                PARSE_ERROR,
                format!(
                    "parse error: the line is not UTF-8 (at byte {})",
                    e.valid_up_to()
                ),
            );
        }
    };
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) if e.to_string().starts_with("recursion limit exceeded") => {
            return error(
                Value::Null,
                INVALID_REQUEST,
                "invalid request: the message is nested too deeply".into(),
            );
        }
        Err(e) => {
            return error(
                Value::Null,
                PARSE_ERROR,
                format!("parse error: the line is not JSON ({e})"),
            );
        }
    };
    let Value::Object(message) = &value else {
        let what = if value.is_array() {
            "a batch (MCP sends one message per line)"
        } else {
            "not a JSON-RPC message object"
        };
        return error(
            Value::Null,
            INVALID_REQUEST,
            format!("invalid request: {what}"),
        );
    };
    let id = match message.get("id") {
        None => None,
        Some(id @ (Value::String(_) | Value::Number(_))) => Some(id.clone()),
        Some(_) => {
            return error(
                Value::Null,
                INVALID_REQUEST,
                "invalid request: the id is neither a string nor a number".into(),
            );
        }
    };
    let answer_id = id.clone().unwrap_or(Value::Null);
    if message.get("jsonrpc") != Some(&Value::from("2.0")) {
        return error(
            answer_id,
            INVALID_REQUEST,
            "invalid request: not JSON-RPC 2.0 (\"jsonrpc\": \"2.0\" is missing)".into(),
        );
    }
    match message.get("method") {
        Some(Value::String(method)) => {
            if let Some(problem) = params_problem(method, message.get("params")) {
                return match id {
                    Some(id) => error(id, INVALID_PARAMS, format!("invalid params: {problem}")),
                    None => Line::Nothing,
                };
            }
        }
        Some(_) => {
            return error(
                answer_id,
                INVALID_REQUEST,
                "invalid request: the method is not a string".into(),
            );
        }
        None if message.contains_key("result") || message.contains_key("error") => {}
        None => {
            return error(
                answer_id,
                INVALID_REQUEST,
                "invalid request: no method (and not a response)".into(),
            );
        }
    }
    match serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(value.clone()) {
        Ok(message) => Line::Message(Box::new(message)),
        // The envelope is sound (checked above): what does not decode is the params.
        Err(e) => match (id, message.contains_key("method")) {
            (Some(id), true) => error(id, INVALID_PARAMS, format!("invalid params: {e}")),
            (Some(id), false) => error(id, INVALID_REQUEST, format!("invalid request: {e}")),
            (None, _) => Line::Nothing,
        },
    }
}

/// What is wrong with a request's params that rmcp would not name (it reads a
/// `tools/call` whose `arguments` are a string as another, unknown request).
fn params_problem(method: &str, params: Option<&Value>) -> Option<String> {
    match params {
        None | Some(Value::Null | Value::Object(_)) => {}
        Some(_) => return Some("params must be an object".into()),
    }
    if method == "tools/call" {
        let Some(params) = params else {
            return Some("tools/call needs params {name, arguments}".into());
        };
        if !params.get("name").is_some_and(Value::is_string) {
            return Some("tools/call: name must be the tool's name, a string".into());
        }
        match params.get("arguments") {
            None | Some(Value::Null | Value::Object(_)) => {}
            Some(_) => {
                return Some("tools/call: arguments must be an object".into());
            }
        }
    }
    None
}

/// Reads `input` line by line, never holding more than [`MAX_LINE`] bytes of one line,
/// and hands each line's class to `each`; stops at the end of the input, or when `each`
/// says so.
pub fn read_lines(mut input: impl BufRead, mut each: impl FnMut(Line) -> bool) {
    let mut line = Vec::new();
    let mut oversized = false;
    loop {
        let (consumed, complete) = match input.fill_buf() {
            Ok([]) => return,
            Ok(buf) => match buf.iter().position(|b| *b == b'\n') {
                Some(end) => {
                    if !oversized {
                        line.extend_from_slice(&buf[..end]);
                    }
                    (end + 1, true)
                }
                None => {
                    if !oversized {
                        line.extend_from_slice(buf);
                    }
                    (buf.len(), false)
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return,
        };
        input.consume(consumed);
        if line.len() > MAX_LINE {
            oversized = true;
            line = Vec::new();
        }
        if complete {
            let class = if oversized {
                error(
                    Value::Null,
                    INVALID_REQUEST,
                    format!(
                        "invalid request: the line is longer than {} MiB",
                        MAX_LINE / 1024 / 1024
                    ),
                )
            } else {
                classify(&line)
            };
            line.clear();
            oversized = false;
            if !each(class) {
                return;
            }
        }
    }
}

/// The stdio transport: lines read on a thread of their own (stdin is blocking), the
/// answers of [`classify`] and rmcp's messages written whole, one line each, under one
/// lock.
#[derive(Debug)]
pub struct Stdio {
    messages: tokio::sync::mpsc::Receiver<RxJsonRpcMessage<RoleServer>>,
    out: Arc<Mutex<std::io::Stdout>>,
}

/// Writes `line` and a newline to `out` at once, and flushes.
fn write_line(out: &Mutex<std::io::Stdout>, line: &[u8]) -> std::io::Result<()> {
    let mut out = out
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    out.write_all(line)?;
    out.write_all(b"\n")?;
    out.flush()
}

impl Stdio {
    /// Starts reading stdin.
    pub fn start() -> Stdio {
        let out = Arc::new(Mutex::new(std::io::stdout()));
        let (tx, messages) = tokio::sync::mpsc::channel(16);
        let answers = Arc::clone(&out);
        std::thread::spawn(move || {
            let stdin = std::io::stdin();
            read_lines(stdin.lock(), |line| match line {
                Line::Message(message) => tx.blocking_send(*message).is_ok(),
                Line::Answer(answer) => {
                    let text = answer.to_string();
                    eprintln!("majordomus mcp: {}", answer["error"]["message"]);
                    write_line(&answers, text.as_bytes()).is_ok()
                }
                Line::Nothing => true,
            });
        });
        Stdio { messages, out }
    }
}

impl Transport<RoleServer> for Stdio {
    type Error = std::io::Error;

    fn name() -> Cow<'static, str> {
        "majordomus stdio".into()
    }

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let out = Arc::clone(&self.out);
        let line = serde_json::to_vec(&item);
        async move {
            let line = line.map_err(std::io::Error::other)?;
            tokio::task::spawn_blocking(move || write_line(&out, &line))
                .await
                .map_err(std::io::Error::other)?
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        self.messages.recv().await
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.messages.close();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(line: &[u8]) -> Option<i64> {
        match classify(line) {
            Line::Answer(answer) => answer["error"]["code"].as_i64(),
            Line::Message(_) | Line::Nothing => None,
        }
    }

    #[test]
    fn every_line_that_is_no_message_gets_its_error() {
        assert_eq!(code(b"{not json"), Some(PARSE_ERROR));
        assert_eq!(code(b"\xff\xfe{}"), Some(PARSE_ERROR));
        assert_eq!(
            code(br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"\ud800"}}"#),
            Some(PARSE_ERROR)
        );
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert_eq!(code(deep.as_bytes()), Some(INVALID_REQUEST));
        assert_eq!(code(b"[]"), Some(INVALID_REQUEST));
        assert_eq!(code(b"42"), Some(INVALID_REQUEST));
        assert_eq!(code(br#"{"id":1,"method":"ping"}"#), Some(INVALID_REQUEST));
        assert_eq!(
            code(br#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#),
            Some(INVALID_REQUEST)
        );
        assert_eq!(code(br#"{"jsonrpc":"2.0","id":1}"#), Some(INVALID_REQUEST));
        let bad_arguments =
            br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"majordomus_env","arguments":"{}"}}"#;
        match classify(bad_arguments) {
            Line::Answer(answer) => {
                assert_eq!(answer["error"]["code"], INVALID_PARAMS);
                assert_eq!(answer["id"], 7, "the request's id");
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(classify(b"   "), Line::Nothing));
        assert!(matches!(
            classify(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            Line::Message(_)
        ));
        assert!(matches!(
            classify(br#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x","arguments":{}}}"#),
            Line::Message(_)
        ));
    }

    #[test]
    fn a_line_past_the_limit_is_answered_and_the_next_one_read() {
        let mut input = vec![b' '; MAX_LINE + 10];
        input.extend_from_slice(b"\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n");
        let mut seen = Vec::new();
        read_lines(std::io::BufReader::new(input.as_slice()), |line| {
            seen.push(match line {
                Line::Answer(answer) => answer["error"]["code"].as_i64().unwrap_or(0),
                Line::Message(_) => 1,
                Line::Nothing => 0,
            });
            true
        });
        assert_eq!(seen, vec![INVALID_REQUEST, 1]);
    }
}
