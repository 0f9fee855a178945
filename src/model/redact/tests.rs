use super::*;

const UPPER_ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const ALPHA: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const ALNUM: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const BASE64: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/";
const BASE64URL: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";
const HEX: &str = "0123456789abcdef";
const DIGITS: &str = "0123456789";

/// Deterministic characters from `alphabet`: fake secrets that look generated, built
/// at run time so no secret-shaped literal sits in the source.
fn noise(alphabet: &str, len: usize, seed: u64) -> String {
    let chars: Vec<char> = alphabet.chars().collect();
    let mut state = seed;
    (0..len)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            chars[(state >> 33) as usize % chars.len()]
        })
        .collect()
}

fn pem(label: &str, seed: u64) -> String {
    let body: Vec<String> = (0..4).map(|i| noise(BASE64, 64, seed + i)).collect();
    format!(
        "-----BEGIN {label}-----\n{}\n-----END {label}-----",
        body.join("\n")
    )
}

/// (shape, text carrying it, the secret that must not survive)
fn secrets() -> Vec<(&'static str, String, String)> {
    let mut corpus = Vec::new();
    let mut add = |shape: &'static str, secret: String, text: &dyn Fn(&str) -> String| {
        corpus.push((shape, text(&secret), secret));
    };

    add(
        "aws-access-key-id",
        format!("AKIA{}", noise(UPPER_ALNUM, 16, 1)),
        &|s| format!("aws configure set aws_access_key_id {s}"),
    );
    add(
        "aws-access-key-id",
        format!("ASIA{}", noise(UPPER_ALNUM, 16, 2)),
        &|s| format!("{{\"AccessKeyId\": \"{s}\", \"Expiration\": \"2026-11-30\"}}"),
    );
    add("aws-secret-access-key", noise(BASE64, 40, 3), &|s| {
        format!("[default]\naws_secret_access_key = {s}\nregion = eu-west-1")
    });
    add("aws-secret-access-key", noise(BASE64, 40, 4), &|s| {
        format!("export AWS_SECRET_ACCESS_KEY={s}")
    });
    add(
        "google-api-key",
        format!("AIza{}", noise(BASE64URL, 35, 5)),
        &|s| format!("curl 'https://maps.googleapis.com/maps/api/geocode/json?key={s}'"),
    );
    add(
        "gcp-service-account-key",
        format!("{}\\n", pem("PRIVATE KEY", 6).replace('\n', "\\n")),
        &|s| {
            format!(
                "{{\n  \"type\": \"service_account\",\n  \"private_key_id\": \"4f2a\",\n  \
                     \"private_key\": \"{s}\",\n  \"client_email\": \"ci@acme.iam.gserviceaccount.com\"\n}}"
            )
        },
    );
    add(
        "azure-account-key",
        format!("{}==", noise(BASE64, 86, 7)),
        &|s| {
            format!(
                "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={s};EndpointSuffix=core.windows.net"
            )
        },
    );
    add(
        "github-token",
        format!("ghp_{}", noise(ALNUM, 36, 8)),
        &|s| format!("GH_TOKEN={s}"),
    );
    add(
        "github-token",
        format!("ghs_{}", noise(ALNUM, 36, 9)),
        &|s| {
            format!("git remote set-url origin https://x-access-token:{s}@github.com/acme/app.git")
        },
    );
    add(
        "github-token",
        format!(
            "github_pat_{}_{}",
            noise(ALNUM, 22, 10),
            noise(ALNUM, 59, 11)
        ),
        &|s| format!("use {s} for the release job"),
    );
    add(
        "gitlab-token",
        format!("glpat-{}", noise(BASE64URL, 20, 12)),
        &|s| format!("PRIVATE-TOKEN: {s}"),
    );
    add(
        "slack-token",
        format!(
            "xoxb-{}-{}-{}",
            noise(DIGITS, 12, 13),
            noise(DIGITS, 13, 14),
            noise(ALNUM, 24, 15)
        ),
        &|s| format!("the bot posts with {s} into #deploys"),
    );
    add(
        "slack-webhook",
        format!(
            "https://hooks.slack.com/services/T{}/B{}/{}",
            noise(UPPER_ALNUM, 8, 16),
            noise(UPPER_ALNUM, 8, 17),
            noise(ALNUM, 24, 18)
        ),
        &|s| format!("alerts go to {s}."),
    );
    add(
        "stripe-key",
        format!("sk_live_{}", noise(ALNUM, 24, 19)),
        &|s| format!("Stripe::api_key = \"{s}\""),
    );
    add(
        "stripe-key",
        format!("rk_live_{}", noise(ALNUM, 24, 20)),
        &|s| format!("restricted key {s}"),
    );
    add(
        "stripe-key",
        format!("sk_test_{}", noise(ALNUM, 24, 21)),
        &|s| format!("test mode: {s}"),
    );
    add(
        "openai-key",
        format!("sk-proj-{}", noise(BASE64URL, 80, 22)),
        &|s| format!("client = OpenAI(api_key=\"{s}\")"),
    );
    add("openai-key", format!("sk-{}", noise(ALNUM, 48, 23)), &|s| {
        format!("old key {s} revoked")
    });
    add(
        "anthropic-key",
        format!("sk-ant-api03-{}AA", noise(BASE64URL, 93, 24)),
        &|s| format!("x-api-key: {s}"),
    );
    add("npm-token", format!("npm_{}", noise(ALNUM, 36, 25)), &|s| {
        format!("//registry.npmjs.org/:_authToken={s}")
    });
    add(
        "pypi-token",
        format!("pypi-AgEIcHlwaS5vcmc{}", noise(BASE64URL, 70, 26)),
        &|s| format!("[pypi]\nusername = __token__\npassword = {s}"),
    );
    add(
        "huggingface-token",
        format!("hf_{}", noise(ALPHA, 34, 27)),
        &|s| format!("huggingface-cli login --token {s}"),
    );
    add(
        "sendgrid-key",
        format!(
            "SG.{}.{}",
            noise(BASE64URL, 22, 28),
            noise(BASE64URL, 43, 29)
        ),
        &|s| format!("mail via {s}"),
    );
    add("twilio-key", format!("SK{}", noise(HEX, 32, 30)), &|s| {
        format!("twilio api key {s} (sid)")
    });
    add(
        "digitalocean-token",
        format!("dop_v1_{}", noise(HEX, 64, 31)),
        &|s| format!("doctl auth init -t {s}"),
    );
    add(
        "shopify-token",
        format!("shpat_{}", noise(HEX, 32, 32)),
        &|s| format!("X-Shopify-Access-Token: {s}"),
    );
    add(
        "jwt",
        format!(
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkFkYSJ9.{}",
            noise(BASE64URL, 43, 33)
        ),
        &|s| format!("session cookie: {s}; Path=/"),
    );
    add("private-key", pem("RSA PRIVATE KEY", 34), &|s| {
        format!("deploy key:\n{s}\nend of paste")
    });
    add("private-key", pem("OPENSSH PRIVATE KEY", 35), &|s| {
        s.to_owned()
    });
    add("private-key", pem("PGP PRIVATE KEY BLOCK", 36), &|s| {
        format!("> {s}")
    });
    add(
        "private-key",
        format!("-----BEGIN EC PRIVATE KEY-----\n{}", noise(BASE64, 64, 37)),
        &|s| format!("truncated paste: {s}"),
    );
    add("bearer-token", noise(ALNUM, 40, 38), &|s| {
        format!("curl -H 'Authorization: Bearer {s}' https://api.example.com/v1")
    });
    add("bearer-token", noise(BASE64URL, 32, 39), &|s| {
        format!("the client sends Bearer {s} on every call")
    });
    add("basic-auth", format!("{}==", noise(BASE64, 22, 40)), &|s| {
        format!("{{\"headers\": {{\"Authorization\": \"Basic {s}\"}}}}")
    });
    add(
        "url-password",
        format!("s3cr3t-{}", noise(ALNUM, 12, 41)),
        &|s| format!("DATABASE_URL=postgres://ada:{s}@db.internal:5432/app"),
    );
    add("url-password", noise(ALNUM, 20, 42), &|s| {
        format!("cache at redis://:{s}@cache:6379/0")
    });
    add(
        "secret-assignment",
        format!("Tr0ub4dor-{}", noise(ALNUM, 8, 43)),
        &|s| format!("DB_PASSWORD={s}"),
    );
    add("secret-assignment", noise(HEX, 32, 44), &|s| {
        format!("service:\n  api_key: {s}\n  region: eu")
    });
    add("secret-assignment", noise(ALNUM, 24, 45), &|s| {
        format!("{{\"client_id\": \"app\", \"client_secret\": \"{s}\"}}")
    });
    add(
        "secret-assignment",
        "correct horse battery staple".to_owned(),
        &|s| format!("[db]\npassword = \"{s}\""),
    );
    add("secret-assignment", noise(ALNUM, 16, 46), &|s| {
        format!("export GITHUB_TOKEN={s}")
    });
    add("secret-assignment", "hunter22x".to_owned(), &|s| {
        format!("we set the staging password: {s} for now")
    });
    add("secret-assignment", noise(ALNUM, 16, 47), &|s| {
        format!("const config = {{ accessToken: '{s}' }}")
    });
    add("secret-assignment", noise(ALNUM, 16, 48), &|s| {
        format!("spring.datasource.password={s}")
    });
    add("secret-assignment", noise(ALNUM, 16, 49), &|s| {
        format!("mysql -u root --password={s} app")
    });
    add("secret-assignment", "open sesame 42".to_owned(), &|s| {
        format!("Password: {s}")
    });
    add("control-characters", "\x1b".to_owned(), &|s| {
        format!("{s}[31mbuild failed{s}[0m")
    });
    corpus
}

const CLEAN: &[&str] = &[
    "1f0c3e2a9b8d7c6e5f4a3b2c1d0e9f8a7b6c5d4e",
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "fixed in 1f0c3e2a9b8d, see 9a8b7c6d5e4f",
    "550e8400-e29b-41d4-a716-446655440000",
    "20261130T101500Z-1a2b3c",
    "q-1a2b3c4d5e",
    "t-20261130-1a2b",
    "the password field is hashed",
    "rotate the token weekly",
    "Keep the secret out of logs; the API key lives in the vault.",
    "Set the token: see the vault runbook.",
    "the password: we hash it with argon2",
    "Bearer tokens are rotated weekly by the gateway.",
    "the bearer of this letter",
    "update the task-list and disk-usage panels",
    "let token = lexer.next();",
    "let token = other;",
    "if token == other { return; }",
    "fn parse(token: &Token) -> Result<Ast, Error>",
    "self.token = token",
    "let data = base64::decode(\"aGVsbG8gd29ybGQ=\")?;",
    "const LOGO: &str = \"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==\";",
    "https://user@host/path",
    "https://example.com/a:b",
    "ssh://git@github.com:22/acme/app.git and git@github.com:acme/app.git",
    "https://user:<password>@host/db",
    "postgres://app:${DB_PASSWORD}@db/app",
    "max_tokens=4096",
    "TOKEN_TTL=3600",
    "PASSWORD_FILE=/run/secrets/db",
    "MIN_PASSWORD_LENGTH=12",
    "tokenizer=bpe",
    "passwordless: true",
    "API_KEY=<your key>",
    "PASSWORD=",
    "password: changeme",
    "SECRET=${SECRET}",
    "TOKEN=$TOKEN",
    "api_token: your-token-here",
    "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}",
    "Authorization: Bearer <token>",
    "Authorization: Bearer $TOKEN",
    "Regional offices in ASIA and EMEA",
    "See https://docs.example.com/auth#tokens",
    "Heslo se ukládá jako hash; the password field is hashed 🙂",
    "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----",
    "password: \"${DB_PASSWORD}\"",
    "token = None",
    "tabs\tand\nnewlines\nstay",
];

#[test]
fn every_corpus_secret_is_found_and_removed() {
    for (shape, text, secret) in secrets() {
        let redacted = redact(&text);
        assert!(
            redacted.shapes.contains(&shape),
            "{shape} missed in {text:?}: {redacted:?}"
        );
        assert!(
            !redacted.text.contains(&secret),
            "{shape} survived: {redacted:?}"
        );
        let marked = redacted.text.contains(&format!("[redacted: {shape}]"));
        assert!(marked || shape == "control-characters", "{redacted:?}");
    }
}

#[test]
fn one_pass_over_every_anchor_finds_what_a_search_per_anchor_finds() {
    let mut texts: Vec<String> = secrets().into_iter().map(|(_, text, _)| text).collect();
    texts.extend(CLEAN.iter().map(|t| (*t).to_owned()));
    // Everything at once, and anchors repeated, overlapping and run together.
    texts.push(texts.join("\n"));
    texts.push(texts.join(" "));
    for overlapping in [
        "AKIAKIAKIA".repeat(8),
        "sk-sk-sk-ant-sk-".repeat(4),
        "secretsecret=secret token=tokentoken password:passwordpassword".to_owned(),
        "authorization: Bearer bearer bearer authorization".repeat(3),
        "://://:// https://user:pw@host/ http://a:b@c".to_owned(),
        "credentialscredentials=abc123DEF456ghi789".to_owned(),
    ] {
        texts.push(overlapping.clone());
        texts.push(overlapping.to_uppercase());
    }
    for text in &texts {
        assert_eq!(
            secret_hits_automaton(text, &[]),
            secret_hits_per_anchor(text, &[]),
            "in {text:?}"
        );
        // With a control character removed before and inside each word (its cut
        // read both ways), the two searches still agree.
        let spiked: String = text.replace(' ', " \x07").replace('=', "=\x07");
        let (clean, cuts) = strip_controls(&spiked);
        let cuts = cuts.unwrap_or_default();
        assert_eq!(
            secret_hits_automaton(&clean, &cuts),
            secret_hits_per_anchor(&clean, &cuts),
            "in {spiked:?}"
        );
        // The bulk entry point (always the automata) names what the other names.
        assert_eq!(find_shapes_bulk(text), find_shapes(text), "in {text:?}");
        assert_eq!(
            find_shapes_bulk(&spiked),
            find_shapes(&spiked),
            "in {spiked:?}"
        );
    }
}

#[test]
fn the_corpus_covers_every_shape() {
    let corpus = secrets();
    for name in SHAPES {
        assert!(
            corpus.iter().any(|(shape, ..)| shape == name),
            "{name} has no example"
        );
    }
}

#[test]
fn clean_text_is_unchanged() {
    for text in CLEAN {
        let redacted = redact(text);
        assert_eq!(redacted.text, *text);
        assert!(
            redacted.is_clean(),
            "false positive in {text:?}: {:?}",
            redacted.shapes
        );
    }
}

#[test]
fn redaction_is_idempotent_and_leaves_nothing_to_find() {
    let texts = secrets().into_iter().map(|(_, text, _)| text);
    for text in texts.chain(CLEAN.iter().map(|t| (*t).to_owned())) {
        let once = redact(&text);
        let twice = redact(&once.text);
        assert_eq!(twice.text, once.text);
        assert!(
            twice.is_clean(),
            "{:?} still carries {:?}",
            once.text,
            twice.shapes
        );
        assert_eq!(find_shapes(&text), once.shapes);
    }
}

#[test]
fn only_the_secret_part_is_replaced() {
    let value = format!("Tr0ub4dor-{}", noise(ALNUM, 8, 50));
    let token = noise(ALNUM, 40, 51);
    let cases = [
        (
            format!("DB_PASSWORD={value}"),
            "DB_PASSWORD=[redacted: secret-assignment]",
        ),
        (
            format!("https://ada:{value}@example.com/x"),
            "https://ada:[redacted: url-password]@example.com/x",
        ),
        (
            format!("Authorization: Bearer {token}"),
            "Authorization: Bearer [redacted: bearer-token]",
        ),
        (
            format!("\"password\": \"{value}\","),
            "\"password\": \"[redacted: secret-assignment]\",",
        ),
        (
            format!("password: {value} # rotated monthly"),
            "password: [redacted: secret-assignment] # rotated monthly",
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(redact(&text).text, expected);
    }
}

#[test]
fn long_runs_of_anchors_are_read_in_bounded_steps() {
    // Runs of key characters and token bodies are bounded, so this stays linear.
    let long = "token_".repeat(5_000) + "=x " + &"sk-".repeat(5_000);
    let redacted = redact(&long);
    assert_eq!(redacted.text, long);
    let records = "API_TOKEN=abc123 and more prose\n".repeat(1_000);
    assert_eq!(redact(&records).shapes, ["secret-assignment"]);
}

#[test]
fn the_more_specific_shape_names_the_marker() {
    let token = format!("ghs_{}", noise(ALNUM, 36, 52));
    let text = format!("https://x-access-token:{token}@github.com/acme/app.git");
    let redacted = redact(&text);
    assert_eq!(
        redacted.text,
        "https://x-access-token:[redacted: github-token]@github.com/acme/app.git"
    );
    assert_eq!(redacted.shapes, ["github-token"]);
}

#[test]
fn a_private_key_block_goes_whole_even_unterminated() {
    let block = pem("RSA PRIVATE KEY", 53);
    let redacted = redact(&format!("before\n{block}\nafter"));
    assert_eq!(redacted.text, "before\n[redacted: private-key]\nafter");

    let open = format!(
        "-----BEGIN OPENSSH PRIVATE KEY-----\n{}",
        noise(BASE64, 70, 54)
    );
    let redacted = redact(&format!("paste:\n{open}\nand more"));
    assert_eq!(redacted.text, "paste:\n[redacted: private-key]");
}

#[test]
fn several_secrets_in_one_string_are_all_reported() {
    let github = format!("ghp_{}", noise(ALNUM, 36, 55));
    let aws = format!("AKIA{}", noise(UPPER_ALNUM, 16, 56));
    let text = format!(
        "\x1b[1mci:\x1b[0m token {github}, key {aws}, db postgres://app:pw-{}@db/app",
        noise(ALNUM, 10, 57)
    );
    let redacted = redact(&text);
    assert_eq!(
        redacted.shapes,
        [
            "aws-access-key-id",
            "control-characters",
            "github-token",
            "url-password"
        ]
    );
    assert_eq!(
        redacted.text,
        "ci: token [redacted: github-token], key [redacted: aws-access-key-id], \
             db postgres://app:[redacted: url-password]@db/app"
    );
}

#[test]
fn secrets_at_the_edges_of_the_text() {
    let token = format!("glpat-{}", noise(BASE64URL, 20, 58));
    assert_eq!(redact(&token).text, "[redacted: gitlab-token]");
    assert_eq!(
        redact(&format!("{token} first")).text,
        "[redacted: gitlab-token] first"
    );
    assert_eq!(
        redact(&format!("last {token}")).text,
        "last [redacted: gitlab-token]"
    );
}

#[test]
fn unicode_around_secrets_survives() {
    let token = format!("hf_{}", noise(ALPHA, 34, 59));
    let text = format!("🔑 klíč: {token} — žluťoučký kůň\nDB_PASSWORD=heslo-čő42 🐴 konec");
    let redacted = redact(&text);
    assert_eq!(
        redacted.text,
        "🔑 klíč: [redacted: huggingface-token] — žluťoučký kůň\n\
             DB_PASSWORD=[redacted: secret-assignment] 🐴 konec"
    );
}

#[test]
fn terminal_control_characters_are_removed() {
    let cases = [
        ("\x1b[1;31mred\x1b[0m plain", "red plain"),
        ("\x1b]0;window title\x07after", "after"),
        (
            "\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\",
            "link",
        ),
        ("line one\r\nline two\r\n", "line one\nline two\n"),
        ("nul\0bell\x07back\x08del\x7f", "nulbellbackdel"),
        ("c1 \u{9b}2Jcsi and \u{85}next line", "c1 csi and next line"),
        ("charset \x1b(Bswitch \x1b7saved", "charset switch saved"),
        (
            "unterminated \x1b]0;title\nnext",
            "unterminated 0;title\nnext",
        ),
        ("lone escape at the end \x1b", "lone escape at the end "),
    ];
    for (text, expected) in cases {
        let redacted = redact(text);
        assert_eq!(redacted.text, expected, "{text:?}");
        assert_eq!(redacted.shapes, ["control-characters"]);
    }
    assert!(redact("tab\tand\nnewline").is_clean());
}

#[test]
fn an_escape_sequence_cannot_hide_a_token() {
    let body = noise(ALNUM, 36, 60);
    let text = format!("gh\x1b[0mp_{body}");
    let redacted = redact(&text);
    assert_eq!(redacted.text, "[redacted: github-token]");
    assert_eq!(redacted.shapes, ["control-characters", "github-token"]);
}

#[test]
fn shape_names_are_unique_kebab_case_and_each_has_a_rule() {
    let mut names = SHAPES.to_vec();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), SHAPES.len());
    for (i, shape) in Shape::ALL.iter().enumerate() {
        assert_eq!(
            *shape as usize, i,
            "Shape::ALL follows the declaration order"
        );
        let name = shape.name();
        assert!(
            name.bytes()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-'),
            "{name}"
        );
        let has_rule = RULES.iter().any(|rule| rule.shape == *shape);
        assert!(
            has_rule || *shape == Shape::ControlCharacters,
            "{name} has no rule"
        );
    }
}

/// The anchors are the prefilter: a shape's matcher runs only where one occurs. A
/// folded anchor with an upper-case letter would never occur in the lower-cased text
/// and its shape would silently never be found.
#[test]
fn folded_anchors_are_lower_case() {
    for rule in RULES {
        assert!(!rule.anchors.is_empty(), "{}", rule.shape.name());
        if let Case::Folded = rule.case {
            for anchor in rule.anchors {
                assert_eq!(
                    *anchor,
                    anchor.to_ascii_lowercase(),
                    "{}",
                    rule.shape.name()
                );
            }
        }
    }
}

#[test]
fn redacted_serializes_text_and_shapes() {
    let json = serde_json::to_value(redact("a\x07b")).expect("serializes");
    assert_eq!(
        json,
        serde_json::json!({ "text": "ab", "shapes": ["control-characters"] })
    );
}
