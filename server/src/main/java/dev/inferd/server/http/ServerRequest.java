package dev.inferd.server.http;

import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.Fields;

import java.io.InputStream;
import java.net.SocketAddress;
import java.util.List;

/**
 * One HTTP request as inferd's handlers see it: method, path, headers, query and body, over the HTTP
 * stack's own request. Methods are as the client sent them (case-sensitive), the path is decoded.
 */
public final class ServerRequest {

    private final Request request;
    private final String id;
    private final RequestBody body;

    ServerRequest(Request request, String id, RequestBody body) {
        this.request = request;
        this.id = id;
        this.body = body;
    }

    /** The id the server gave this request: its response's {@code x-request-id}, and the id an error message names. */
    public String id() {
        return id;
    }

    public String method() {
        return request.getMethod();
    }

    /**
     * The decoded path, without the query. Encoded slashes are decoded too: model ids contain {@code /}, and
     * clients send them as {@code %2F} in {@code /v1/models/{id}}.
     */
    public String path() {
        return request.getHttpURI().getDecodedPath();
    }

    /** The first value of the header, or null. */
    public String header(String name) {
        return request.getHeaders().get(name);
    }

    public List<String> headerValues(String name) {
        return request.getHeaders().getValuesList(name);
    }

    public boolean hasHeader(String name) {
        return request.getHeaders().contains(name);
    }

    /** The declared {@code Content-Length}, or -1 when the body is chunked or absent. */
    public long contentLength() {
        return request.getHeaders().getLongField(HttpHeader.CONTENT_LENGTH);
    }

    /** True when the request says it has a body (a positive length, or a transfer coding). */
    public boolean hasBody() {
        return contentLength() > 0 || request.getHeaders().contains(HttpHeader.TRANSFER_ENCODING);
    }

    /**
     * The body (the same stream on every call); each wait for its next bytes is bounded by the read timeout,
     * and a body that arrives slower than the minimum rate fails. Closing it leaves the rest unread, for the
     * server to deal with after the answer.
     */
    public InputStream body() {
        return body;
    }

    /** A query parameter's first value, or null (also for a query that does not decode). */
    public String query(String name) {
        try {
            Fields fields = Request.extractQueryParameters(request);
            return fields.getValue(name);
        } catch (RuntimeException e) {
            return null;
        }
    }

    public SocketAddress localAddress() {
        return request.getConnectionMetaData().getLocalSocketAddress();
    }

    public SocketAddress remoteAddress() {
        return request.getConnectionMetaData().getRemoteSocketAddress();
    }

    /** What a layer in front of the routes attached to this request, or null. */
    public Object attribute(String name) {
        return request.getAttribute(name);
    }

    public void attribute(String name, Object value) {
        request.setAttribute(name, value);
    }
}
