package dev.inferd.app.models;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * One model of the catalog: a slug mapped to one file of a Hugging Face repository at a pinned
 * revision. Field names on the wire are those of {@code catalog.json} ({@code id} is the slug).
 *
 * @param sizeBytes the exact file size, or null where no source confirmed it
 * @param sha256    the lower-case hex SHA-256 of the file, or null where no source confirmed it
 *                  (the downloader then computes it and records it beside the file)
 * @param tokenizer {@code llama} (SentencePiece) or {@code gpt2/<tokenizer.ggml.pre>}, as the file's GGUF says;
 *                  null where the catalog does not say (a user's entry)
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record CatalogEntry(
        @JsonProperty("id") String slug,
        @JsonProperty("owned_by") String ownedBy,
        @JsonProperty("architecture") String architecture,
        @JsonProperty("kind") String kind,
        @JsonProperty("hf_repo") String hfRepo,
        @JsonProperty("file") String file,
        @JsonProperty("revision") String revision,
        @JsonProperty("size_bytes") Long sizeBytes,
        @JsonProperty("sha256") String sha256,
        @JsonProperty("context_length") Integer contextLength,
        @JsonProperty("quant") String quant,
        @JsonProperty("license") String license,
        @JsonProperty("source_note") String sourceNote,
        @JsonProperty("tokenizer") String tokenizer) {

    private static final Pattern SLUG = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");
    private static final Pattern REPO = Pattern.compile("[A-Za-z0-9._-]+/[A-Za-z0-9._-]+");
    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");

    public CatalogEntry {
        if (slug == null || !SLUG.matcher(slug).matches()) {
            throw new IllegalArgumentException("model id " + quoted(slug)
                    + " must be letters, digits, '.', '_' or '-' (it is the slug of `inferd pull <slug>`)");
        }
        if (hfRepo == null || !REPO.matcher(hfRepo).matches()) {
            throw new IllegalArgumentException(slug + ": hf_repo " + quoted(hfRepo) + " must look like owner/name");
        }
        requireText(slug, "revision", revision);
        requireText(slug, "file", file);
        // The file name becomes a path under $INFERD_HOME/models: it must stay inside it.
        if (file.startsWith("/") || file.contains("\\")
                || ("/" + file + "/").contains("/../") || ("/" + file + "/").contains("/./")
                || file.contains("//") || file.endsWith("/")) {
            throw new IllegalArgumentException(slug + ": file " + quoted(file) + " must be a plain relative path");
        }
        if (revision.contains("/") || revision.equals("..") || revision.equals(".")) {
            throw new IllegalArgumentException(slug + ": revision " + quoted(revision) + " must be a commit or a branch name without '/'");
        }
        if (sizeBytes != null && sizeBytes <= 0) {
            throw new IllegalArgumentException(slug + ": size_bytes must be positive, got " + sizeBytes);
        }
        if (sha256 != null) {
            sha256 = sha256.toLowerCase(Locale.ROOT);
            if (!SHA256.matcher(sha256).matches()) {
                throw new IllegalArgumentException(slug + ": sha256 must be 64 hex digits, got " + quoted(sha256));
            }
        }
        ownedBy = ownedBy == null || ownedBy.isBlank() ? "user" : ownedBy;
        architecture = orUnknown(architecture);
        kind = orUnknown(kind);
        quant = orUnknown(quant);
    }

    /** An entry that does not name its tokenizer. */
    public CatalogEntry(String slug, String ownedBy, String architecture, String kind, String hfRepo, String file,
                        String revision, Long sizeBytes, String sha256, Integer contextLength, String quant, String license,
                        String sourceNote) {
        this(slug, ownedBy, architecture, kind, hfRepo, file, revision, sizeBytes, sha256, contextLength, quant, license,
                sourceNote, null);
    }

    /** Whether this build can serve the model, and why not. */
    public Servability servability() {
        return Servability.of(this);
    }

    public OptionalLong size() {
        return sizeBytes == null ? OptionalLong.empty() : OptionalLong.of(sizeBytes);
    }

    public Optional<String> expectedSha256() {
        return Optional.ofNullable(sha256);
    }

    /** The file's own name, without the folders it sits in inside the repository. */
    public String fileName() {
        return file.substring(file.lastIndexOf('/') + 1);
    }

    private static void requireText(String slug, String field, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(slug + ": " + field + " is missing");
        }
    }

    private static String orUnknown(String s) {
        return s == null || s.isBlank() ? "unknown" : s;
    }

    private static String quoted(String s) {
        return s == null ? "null" : "'" + s + "'";
    }
}
