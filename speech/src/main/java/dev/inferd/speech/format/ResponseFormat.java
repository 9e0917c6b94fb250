package dev.inferd.speech.format;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/** The transcript formats of OpenAI's audio endpoints, with the content type each is sent with. */
public enum ResponseFormat {
    JSON("json", "application/json"),
    TEXT("text", "text/plain; charset=utf-8"),
    SRT("srt", "application/x-subrip; charset=utf-8"),
    VERBOSE_JSON("verbose_json", "application/json"),
    VTT("vtt", "text/vtt; charset=utf-8");

    private final String wireName;
    private final String contentType;

    ResponseFormat(String wireName, String contentType) {
        this.wireName = wireName;
        this.contentType = contentType;
    }

    public String wireName() { return wireName; }

    public String contentType() { return contentType; }

    /** The format called {@code name} on the wire, if it is one. */
    public static Optional<ResponseFormat> parse(String name) {
        String n = name.strip().toLowerCase(Locale.ROOT);
        return Arrays.stream(values()).filter(f -> f.wireName.equals(n)).findFirst();
    }

    public static String known() {
        return String.join(", ", Arrays.stream(values()).map(ResponseFormat::wireName).toList());
    }
}
