//! The MCP surface (SPEC §9): `majordomus mcp` on stdio. Every tool and resource is
//! generated from the operation registry; a call opens the repository, runs the
//! operation off the async runtime and maps its outcome (result, refusal, failure) to a
//! tool result. No logic of its own.
//!
//! Exposed: every operation that is neither a human act (promote, reject) nor an entry
//! point (the hooks, `setup`), reads and writes alike, so an agent can record through the
//! surface it uses and open or close its own episode where its client has no hooks.

pub mod framing;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    Implementation, InitializeResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ServerHandler, ServiceExt};
use serde_json::{Map, Value};

use crate::error::{Error, ErrorReport};
use crate::ops::{Invoked, Operation, Registry, Verdict};
use crate::store::StoreError;
use crate::{Clock, Ctx};

/// Resources: an operation's result under a URI (surface metadata, one line each; an
/// operation missing from the registry has no resource).
const RESOURCES: &[(&str, &str, &str)] = &[
    (
        "context",
        "majordomus://context",
        "The repository's working context: briefing, reasoning, knowledge, outbox, intent.",
    ),
    (
        "knowledge.candidates",
        "majordomus://knowledge/candidates",
        "Knowledge candidates awaiting review.",
    ),
    (
        "reasoning.status",
        "majordomus://reasoning",
        "The reasoning of the work: assessments, consultations, conclusions, timeline.",
    ),
    (
        "reasoning.advisors",
        "majordomus://reasoning/advisors",
        "The advisor catalogue and each advisor's availability now.",
    ),
];

/// Resource templates: one record of each recall kind, read whole through `recall.show`
/// (every recall hit names its URI).
pub const TEMPLATES: &[(&str, &str)] = &[
    (
        "knowledge",
        "A knowledge record (curated or candidate), whole.",
    ),
    (
        "decision",
        "A decision from the ledger, with the knowledge record it derived.",
    ),
    ("question", "An answered question and its answer."),
    ("checkpoint", "A checkpoint from the ledger."),
    ("session", "A closed episode's session record."),
    ("handover", "A derived handover."),
    ("conclusion", "A reasoning conclusion."),
];

/// Every resource template of `registry` (none when it has no `recall.show`).
pub fn resource_templates(registry: &Registry) -> Vec<rmcp::model::ResourceTemplate> {
    if registry.get("recall.show").is_none() {
        return Vec::new();
    }
    TEMPLATES
        .iter()
        .map(|(kind, description)| {
            rmcp::model::ResourceTemplate::new(format!("majordomus://{kind}/{{id}}"), *kind)
                .with_description(*description)
                .with_mime_type("text/markdown")
        })
        .collect()
}

/// The recall reference a templated URI names (`majordomus://decision/<id>` →
/// `decision:<id>`).
fn templated(uri: &str) -> Option<String> {
    let rest = uri.strip_prefix("majordomus://")?;
    let (kind, id) = rest.split_once('/')?;
    (TEMPLATES.iter().any(|(k, _)| *k == kind) && !id.is_empty() && !id.contains('/'))
        .then(|| format!("{kind}:{id}"))
}

/// What the server says about itself when a client connects: the sentence that matters
/// first, then where the rest of the practice is (the briefing's first section,
/// [`crate::briefing::PRACTICE`]), the whole under 300 bytes (a client may cut what is
/// longer: Codex kept 312).
pub const INSTRUCTIONS: &str = "Before you decide something or change an area, call majordomus_recall with its files or words. Record each decision with the files it concerns (majordomus_decision_record). The session-start briefing's \"How to work here\" says the rest: material uncertainty, advisors (majordomus_briefing).";

/// An operation an agent may run: neither a human act, nor an act on the repository's
/// wiring, nor an entry point.
pub fn exposed(operation: &Operation) -> bool {
    operation.offered_to_agents()
}

/// The tool name of an operation: SPEC's spelling when the registry gives one, else
/// `majordomus_` + the name with dots (and dashes) as underscores.
pub fn tool_name(operation: &Operation) -> String {
    operation.tool_name()
}

/// A request schema trimmed for an agent's context, where every byte is paid for:
/// without `$schema`, the type's `title` and doc, `additionalProperties` (the decoding
/// refuses an unknown field by name anyway), `default`s and number `format`s; an
/// optional field's `null` alternative left implicit (leaving it out is how to say
/// nothing); the schema's `$defs` inlined where they are used; a choice of constants as
/// one `enum`.
pub fn trimmed_schema(schema: Value) -> Map<String, Value> {
    let Value::Object(mut root) = schema else {
        return Map::new();
    };
    for key in ["$schema", "title", "description", "additionalProperties"] {
        root.remove(key);
    }
    let defs = match root.remove("$defs") {
        Some(Value::Object(defs)) => defs,
        _ => Map::new(),
    };
    let required: Vec<Value> = match root.get("required") {
        Some(Value::Array(r)) => r.clone(),
        _ => Vec::new(),
    };
    if let Some(Value::Object(properties)) = root.get_mut("properties") {
        for (name, property) in properties.iter_mut() {
            inline_defs(property, &defs, 0);
            simplify(property);
            let Value::Object(p) = property else { continue };
            p.remove("default");
            long_enum_as_string(p);
            if !required.contains(&Value::String(name.clone())) {
                drop_null(p);
            }
        }
    }
    root
}

/// Longest enum an agent's schema spells out; a longer one (`history`'s 21 events) is a
/// string whose description names an example, and the server's own decoding still
/// refuses a value outside it, naming them all.
const MAX_ENUM: usize = 12;

fn long_enum_as_string(property: &mut Map<String, Value>) {
    if matches!(property.get("enum"), Some(Value::Array(values)) if values.len() > MAX_ENUM) {
        property.remove("enum");
        property.insert("type".into(), Value::String("string".into()));
    }
    // A list of such values (`history`'s repeatable event) is a list of strings.
    if let Some(Value::Object(items)) = property.get_mut("items") {
        long_enum_as_string(items);
    }
}

/// `{"type": ["string", "null"]}` as `{"type": "string"}`; `anyOf: [X, null]` as `X`;
/// `null` out of an `enum`.
fn drop_null(property: &mut Map<String, Value>) {
    if let Some(Value::Array(values)) = property.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    if let Some(Value::Array(types)) = property.get("type") {
        let kept: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
        if let [one] = kept.as_slice() {
            property.insert("type".into(), one.clone());
        }
    }
    if let Some(Value::Array(variants)) = property.get("anyOf") {
        let kept: Vec<&Value> = variants
            .iter()
            .filter(|v| v.get("type").is_none_or(|t| t != "null"))
            .collect();
        if let [Value::Object(one)] = kept.as_slice() {
            let one = one.clone();
            property.remove("anyOf");
            for (k, v) in one {
                // The field's own description says it better than its type's.
                property.entry(k).or_insert(v);
            }
        }
    }
}

/// Drops `format` (and the alternatives that said nothing else) and turns
/// `oneOf`/`anyOf` of string constants into one `enum`, everywhere in `value`.
fn simplify(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.remove("format");
            for key in ["oneOf", "anyOf"] {
                let formats_only = map.get(key).and_then(Value::as_array).is_some_and(|v| {
                    v.iter().all(|v| {
                        v.as_object()
                            .is_some_and(|o| o.keys().all(|k| k == "format"))
                    })
                });
                if formats_only {
                    map.remove(key);
                }
            }
            for key in ["oneOf", "anyOf"] {
                let constants: Option<Vec<Value>> =
                    map.get(key).and_then(Value::as_array).and_then(|variants| {
                        variants.iter().map(|v| v.get("const").cloned()).collect()
                    });
                if let Some(constants) = constants
                    && constants.iter().all(Value::is_string)
                {
                    map.remove(key);
                    map.insert("type".into(), "string".into());
                    map.insert("enum".into(), Value::Array(constants));
                }
            }
            // An array's items are described by the array's own description; an enum's
            // values name themselves.
            if let Some(Value::Object(items)) = map.get_mut("items") {
                items.remove("description");
            }
            map.values_mut().for_each(simplify);
        }
        Value::Array(items) => items.iter_mut().for_each(simplify),
        _ => {}
    }
}

/// Replaces `{"$ref": "#/$defs/X"}` with X itself (recursion bounded: schemars defs of
/// request types are shallow).
fn inline_defs(value: &mut Value, defs: &Map<String, Value>, depth: usize) {
    if depth > 8 {
        return;
    }
    match value {
        Value::Object(map) => {
            let target = map
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/$defs/"))
                .and_then(|name| defs.get(name));
            if let Some(Value::Object(def)) = target {
                map.remove("$ref");
                for (k, v) in def {
                    if k != "description" || !map.contains_key("description") {
                        map.entry(k.clone()).or_insert_with(|| v.clone());
                    }
                }
            }
            for v in map.values_mut() {
                inline_defs(v, defs, depth + 1);
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|v| inline_defs(v, defs, depth + 1)),
        _ => {}
    }
}

/// The operations whose tools carry an `outputSchema`: what the 16 KB budget of
/// `tools/list` leaves room for (docs/MCP.md says which and why). None today: the 44
/// tools are 15.8 KB without them, and the smallest useful one (`question.ask`'s, about
/// 210 bytes) would leave no room for the next field.
pub const OUTPUT_SCHEMAS: &[&str] = &[];

/// A result schema as a tool's `outputSchema`: its top level, the fields always there
/// (`required`), with their JSON types where the type says one. Looser than the whole schema (`majordomus schema
/// --operation <name>` prints it), never stricter: every result that validates against
/// the whole schema validates against this one.
pub fn output_schema(schema: &Value) -> Map<String, Value> {
    let defs = schema.get("$defs").and_then(Value::as_object);
    let type_of = |property: &Value| -> Option<Value> {
        let target = property
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix("#/$defs/"))
            .and_then(|name| defs?.get(name));
        target
            .unwrap_or(property)
            .get("type")
            .map(|t| serde_json::json!({ "type": t }))
    };
    let required: Vec<Value> = schema
        .get("required")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let properties: Map<String, Value> = required
        .iter()
        .filter_map(Value::as_str)
        .filter_map(|name| {
            let property = schema.get("properties")?.get(name)?;
            Some((name.to_owned(), type_of(property)?))
        })
        .collect();
    let mut out = Map::new();
    out.insert("type".into(), "object".into());
    out.insert("properties".into(), Value::Object(properties));
    out.insert("required".into(), Value::Array(required));
    out
}

/// An operation's annotations, each hint said only where it differs from MCP's default
/// (`readOnlyHint` false, `destructiveHint` true, `idempotentHint` false,
/// `openWorldHint` true): every byte of `tools/list` is paid for in the agent's context.
fn annotations(op: &Operation) -> ToolAnnotations {
    let mut hints = ToolAnnotations::new();
    if !op.writes {
        hints = hints.read_only(true);
    } else {
        if !op.destructive {
            hints = hints.destructive(false);
        }
        if op.idempotent {
            hints = hints.idempotent(true);
        }
    }
    if !op.open_world {
        hints = hints.open_world(false);
    }
    hints
}

/// Every tool of `registry`, in registry order: a pure function of the registry.
pub fn tools(registry: &Registry) -> Vec<Tool> {
    registry
        .iter()
        .filter(|op| exposed(op))
        .map(|op| {
            let mut tool = Tool::new(
                tool_name(op),
                op.summary,
                Arc::new(trimmed_schema(op.request_schema())),
            );
            if OUTPUT_SCHEMAS.contains(&op.name) {
                tool = tool.with_raw_output_schema(Arc::new(output_schema(&op.result_schema())));
            }
            tool.annotations = Some(annotations(op));
            tool
        })
        .collect()
}

/// Every resource of `registry` (from [`RESOURCES`]): a pure function of the registry.
pub fn resources(registry: &Registry) -> Vec<Resource> {
    RESOURCES
        .iter()
        .filter(|(op, _, _)| registry.get(op).is_some())
        .map(|(op, uri, description)| {
            Resource::new(*uri, *op)
                .with_description(*description)
                .with_mime_type("text/markdown")
        })
        .collect()
}

/// Opens the repository at `dir` and runs `operation` on `request`, as a CLI run would:
/// the clock from `MAJORDOMUS_NOW`, writes stamped with the episode open at that moment.
pub fn invoke(
    registry: &Registry,
    dir: &Path,
    operation: &str,
    request: Value,
) -> Result<Invoked, Error> {
    let mut ctx = Ctx::open(dir, Clock::from_env()?)?;
    // What a tool answers is put before the model: logged as context.shown.
    ctx.agent = true;
    registry.invoke(&ctx, operation, request)
}

/// Whether results carry their JSON as `structuredContent` beside the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Structured {
    /// Only where the JSON is smaller than the text, or the verdict failed (SPEC §9: a
    /// check's blocking findings travel as structure): a client that prefers
    /// `structuredContent` puts it before the model instead of the text, so the model
    /// reads the text.
    #[default]
    WhereNeeded,
    /// Every result and every error (`majordomus mcp --structured-content`): for a
    /// program that reads the results as JSON.
    Always,
}

/// A result as a tool returns it: the readable text, and the JSON as structured content
/// where `structured` says so.
fn tool_result(invoked: Invoked, structured: Structured) -> CallToolResult {
    let mut text = if invoked.text.is_empty() {
        invoked.value.to_string()
    } else {
        invoked.text
    };
    if let Some(note) = invoked.note {
        text.push('\n');
        text.push_str(&note);
    }
    // The verdict travels: a check with blocking findings, or a gate that said no, is a
    // tool error whose structured content is the whole result (the findings).
    let failed = matches!(invoked.verdict, Verdict::Blocking | Verdict::Refused);
    let carried = match structured {
        Structured::Always => true,
        Structured::WhereNeeded => failed || invoked.value.to_string().len() < text.len(),
    };
    let mut result = if failed {
        CallToolResult::error(vec![ContentBlock::text(text)])
    } else {
        CallToolResult::success(vec![ContentBlock::text(text)])
    };
    if carried {
        result.structured_content = Some(invoked.value);
    }
    result
}

/// An error as a tool error: `isError`, the rule, message and fix in its text (and, where
/// `structured` asks for it, as structure).
fn tool_error(report: &ErrorReport, structured: Structured) -> CallToolResult {
    let class = serde_json::to_value(report.class).expect("a class serialises");
    let mut text = format!(
        "{} [{}]: {}",
        class.as_str().unwrap_or("failed"),
        report.rule,
        report.message
    );
    if let Some(fix) = &report.fix {
        text.push_str("\nfix: ");
        text.push_str(fix);
    }
    let mut result = CallToolResult::error(vec![ContentBlock::text(text)]);
    if structured == Structured::Always {
        result.structured_content = Some(serde_json::json!({ "error": report }));
    }
    result
}

/// The MCP server of one repository.
#[derive(Clone)]
pub struct Server {
    registry: Arc<Registry>,
    dir: PathBuf,
    structured: Structured,
    tools: Arc<Vec<Tool>>,
    resources: Arc<Vec<Resource>>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").field("dir", &self.dir).finish()
    }
}

impl Server {
    /// A server for the repository containing `dir` (opened anew for every call).
    pub fn new(registry: Registry, dir: PathBuf, structured: Structured) -> Server {
        Server {
            structured,
            tools: Arc::new(tools(&registry)),
            resources: Arc::new(resources(&registry)),
            registry: Arc::new(registry),
            dir,
        }
    }

    fn operation_of_tool(&self, tool: &str) -> Option<&'static str> {
        self.registry
            .iter()
            .find(|op| exposed(op) && tool_name(op) == tool)
            .map(|op| op.name)
    }

    /// Runs `operation` on the blocking pool (git and file work must not hold a runtime
    /// thread), logging failures to stderr.
    async fn run(&self, operation: &'static str, request: Value) -> Result<Invoked, ErrorReport> {
        let registry = Arc::clone(&self.registry);
        let dir = self.dir.clone();
        let outcome =
            tokio::task::spawn_blocking(move || invoke(&registry, &dir, operation, request)).await;
        let report = match outcome {
            Ok(Ok(invoked)) => return Ok(invoked),
            Ok(Err(error)) => error.report(),
            Err(join) => Error::from(StoreError::io(
                Path::new(operation),
                std::io::Error::other(join.to_string()),
            ))
            .report(),
        };
        eprintln!(
            "majordomus mcp: {operation}: [{}] {}",
            report.rule, report.message
        );
        Err(report)
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .build();
        let mut info = InitializeResult::new(capabilities).with_instructions(INSTRUCTIONS);
        info.server_info = Implementation::new("majordomus", env!("CARGO_PKG_VERSION"));
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(operation) = self.operation_of_tool(&request.name) else {
            return Err(ErrorData::invalid_params(
                format!("{}: no such tool (tools/list names them)", request.name),
                None,
            ));
        };
        let arguments = request.arguments.map_or(Value::Null, Value::Object);
        Ok(match self.run(operation, arguments).await {
            Ok(invoked) => tool_result(invoked, self.structured),
            Err(report) => tool_error(&report, self.structured),
        }
        .into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(
            self.resources.as_ref().clone(),
        ))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListResourceTemplatesResult, ErrorData> {
        Ok(rmcp::model::ListResourceTemplatesResult::with_all_items(
            resource_templates(&self.registry),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let (operation, uri, request) = match RESOURCES
            .iter()
            .find(|(op, uri, _)| *uri == request.uri && self.registry.get(op).is_some())
        {
            Some((operation, uri, _)) => (*operation, (*uri).to_owned(), Value::Null),
            None => match templated(&request.uri)
                .filter(|_| self.registry.get("recall.show").is_some())
            {
                Some(reference) => (
                    "recall.show",
                    request.uri.clone(),
                    serde_json::json!({ "reference": reference }),
                ),
                None => {
                    return Err(ErrorData::resource_not_found(
                        format!(
                            "{}: no such resource (resources/list and resources/templates/list name them)",
                            request.uri
                        ),
                        None,
                    ));
                }
            },
        };
        match self.run(operation, request).await {
            Ok(invoked) => {
                let text = ResourceContents::TextResourceContents {
                    uri: uri.clone(),
                    mime_type: Some("text/markdown".into()),
                    text: invoked.text,
                    meta: None,
                };
                let json = ResourceContents::TextResourceContents {
                    uri,
                    mime_type: Some("application/json".into()),
                    text: invoked.value.to_string(),
                    meta: None,
                };
                Ok(ReadResourceResult::new(vec![text, json]).into())
            }
            // A record that is not there is not there (-32002), like an unknown URI.
            Err(report) if report.rule == "recall.known" => Err(ErrorData::resource_not_found(
                format!("[{}] {}", report.rule, report.message),
                Some(serde_json::json!({ "error": report })),
            )),
            Err(report) => Err(ErrorData::internal_error(
                format!("[{}] {}", report.rule, report.message),
                Some(serde_json::json!({ "error": report })),
            )),
        }
    }
}

/// Serves MCP on stdin/stdout until the client closes stdin.
pub fn run(registry: Registry, dir: PathBuf, structured: Structured) -> Result<(), Error> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| StoreError::io(Path::new("tokio runtime"), e))?;
    runtime.block_on(async move {
        let server = Server::new(registry, dir, structured);
        let running = match server.serve(framing::Stdio::start()).await {
            Ok(running) => running,
            // A client that hangs up before the handshake is no failure of ours.
            Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
            Err(e) => {
                return Err(StoreError::io(Path::new("stdio"), std::io::Error::other(e)).into());
            }
        };
        running
            .waiting()
            .await
            .map_err(|e| StoreError::io(Path::new("stdio"), std::io::Error::other(e)))?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    //! The surfaces are generated: an operation registered here, and nowhere else, is a
    //! tool and a route with its schemas, with no surface code written for it.

    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    use super::*;
    use crate::ops::{Report, op};

    #[test]
    fn a_long_enum_is_a_string_alone_or_in_a_list() {
        let values: Vec<String> = (0..=MAX_ENUM).map(|n| format!("v{n}")).collect();
        let schema = serde_json::json!({
            "type": "object",
            "properties": {
                "one": {"type": "string", "enum": values},
                "many": {"type": "array", "items": {"type": "string", "enum": values}},
                "few": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
            },
        });
        let trimmed = trimmed_schema(schema);
        let properties = &trimmed["properties"];
        assert_eq!(properties["one"], serde_json::json!({"type": "string"}));
        assert_eq!(
            properties["many"],
            serde_json::json!({"type": "array", "items": {"type": "string"}})
        );
        assert_eq!(
            properties["few"]["items"]["enum"],
            serde_json::json!(["a", "b"])
        );
    }

    /// `probe.echo`.
    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    struct EchoRequest {
        /// What to echo.
        text: String,
        /// How often.
        #[serde(default)]
        times: Vec<u32>,
    }

    #[derive(Debug, Serialize, JsonSchema)]
    struct Echoed {
        text: String,
    }

    impl Report for Echoed {
        fn text(&self) -> String {
            self.text.clone()
        }
    }

    fn echo(_ctx: &Ctx, request: EchoRequest) -> Result<Echoed, Error> {
        Ok(Echoed {
            text: request.text.repeat(request.times.len().max(1)),
        })
    }

    #[test]
    fn an_output_schema_is_the_required_top_level_of_the_result_schema() {
        let registry = Registry::standard();
        let full = registry
            .get("question.ask")
            .expect("question.ask")
            .result_schema();
        let output = Value::Object(output_schema(&full));
        assert_eq!(output["type"], "object");
        assert_eq!(output["required"], full["required"], "{output}");
        assert_eq!(output["properties"]["seq"]["type"], "integer", "{output}");
        assert!(output.get("$defs").is_none() && !output.to_string().contains("$ref"));
        // Never stricter than the whole schema: a field the whole schema types by a
        // reference without a type is left untyped.
        assert!(
            output["properties"].get("id").is_none(),
            "optional: {output}"
        );
    }

    #[test]
    fn an_operation_added_to_the_registry_is_on_every_surface() {
        let mut registry = Registry::standard();
        registry
            .register(op("probe.echo", "probe echo", "Echo the text back.", echo))
            .register(op("probe.record", "probe record", "Record the text.", echo).writes());

        let listed = tools(&registry);
        let tool = listed
            .iter()
            .find(|t| t.name == "majordomus_probe_echo")
            .expect("a tool for probe.echo");
        assert_eq!(tool.description.as_deref(), Some("Echo the text back."));
        assert_eq!(tool.input_schema["required"], serde_json::json!(["text"]));
        assert_eq!(tool.input_schema["properties"]["times"]["type"], "array");
        let hints = tool.annotations.as_ref().expect("annotations");
        assert_eq!(hints.read_only_hint, Some(true));
        assert!(listed.iter().any(|t| t.name == "majordomus_probe_record"));
        assert!(
            !tools(&Registry::standard())
                .iter()
                .any(|t| t.name == "majordomus_probe_echo"),
            "only this registry has it"
        );

        let routes = crate::http::routes::routes(&registry);
        assert!(routes.iter().any(
            |r| r.path == "/api/v1/probe/echo" && r.method == crate::http::routes::Method::Get
        ));
        let document = crate::http::openapi::openapi(&registry);
        let get = &document["paths"]["/api/v1/probe/echo"]["get"];
        assert_eq!(get["operationId"], "probe.echo");
        let parameters = get["parameters"].as_array().expect("query parameters");
        assert!(
            parameters
                .iter()
                .any(|p| p["name"] == "text" && p["required"] == true)
        );
        let post = &document["paths"]["/api/v1/probe/record"]["post"];
        assert_eq!(post["operationId"], "probe.record");
        assert!(post["requestBody"].is_object());
        assert_eq!(
            post["responses"]["200"]["content"]["application/json"]["schema"]["$ref"],
            "#/components/schemas/Echoed"
        );
    }
}
