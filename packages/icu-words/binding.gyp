# The addon of @docdb/icu-words, built by install.cjs against the Node.js that installs it: the
# ICU major version in the symbol names is that Node's (process.versions.icu).
{
  "targets": [
    {
      "target_name": "icu_words",
      "sources": ["src/icu_words.c"],
      "defines": ["DOCDB_ICU_MAJOR=<!(node -p \"process.versions.icu.split('.')[0]\")"],
      "conditions": [
        # Bind every symbol at load, so a Node without them fails the require (and docdb uses
        # Intl.Segmenter) instead of stopping the process at the first call.
        ["OS=='linux'", { "ldflags": ["-Wl,-z,now"] }],
        ["OS=='mac'", { "xcode_settings": { "OTHER_LDFLAGS": ["-Wl,-bind_at_load"] } }]
      ]
    }
  ]
}
