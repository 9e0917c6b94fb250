package dev.inferd.server.http;

import dev.inferd.server.openai.ApiError;
import dev.inferd.server.openai.WireJson;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

import java.nio.ByteBuffer;

/**
 * The answer to what Jetty refuses itself, before routing (a malformed request line, broken framing,
 * headers too large, a path with a NUL): OpenAI's error body and a request id instead of Jetty's error page, and
 * {@code Connection: close}.
 */
final class JsonErrorHandler implements Request.Handler {

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        int reported = request.getAttribute(ErrorHandler.ERROR_STATUS) instanceof Integer s ? s : response.getStatus();
        String reason = HttpStatus.getMessage(reported);
        String detail = request.getAttribute(ErrorHandler.ERROR_MESSAGE) instanceof String m && !m.isBlank()
                && !m.equals(reason) ? reason + ": " + m : reason + ": the request could not be read.";
        int status;
        String message;
        switch (reported) {
            // A transfer coding Jetty does not implement (501), a version other than HTTP/1.0 and 1.1 (505, or 426
            // for an HTTP/2 request line): the client's request is wrong, a 400 by this API's rules.
            case HttpStatus.NOT_IMPLEMENTED_501 -> {
                status = HttpStatus.BAD_REQUEST_400;
                message = "Transfer-Encoding other than chunked is not supported.";
            }
            case HttpStatus.HTTP_VERSION_NOT_SUPPORTED_505, HttpStatus.UPGRADE_REQUIRED_426 -> {
                status = HttpStatus.BAD_REQUEST_400;
                message = "Unsupported HTTP version: send HTTP/1.1 or HTTP/1.0.";
            }
            default -> {
                status = reported < 400 ? HttpStatus.INTERNAL_SERVER_ERROR_500 : reported;
                message = status >= 500 ? "The server had an error while processing your request." : detail;
            }
        }
        String type = status >= 500 ? ApiError.INTERNAL : ApiError.INVALID_REQUEST;
        String requestId = Ids.requestId();
        WireProtocol protocol = WireProtocol.of(request.getHttpURI() == null ? null : request.getHttpURI().getPath());
        byte[] body = WireJson.bytes(protocol.errorBody(new ApiError(status, type, message, null, null), requestId));
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, JsonExchange.JSON);
        response.getHeaders().put(ApiRouter.REQUEST_ID, requestId);
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
        // Jetty closes the connection after a request it could not take (the parser cannot go on past it); saying
        // so keeps a client from sending its next request on a connection that is about to close.
        response.getHeaders().put(HttpHeader.CONNECTION, "close");
        response.write(true, ByteBuffer.wrap(body), callback);
        return true;
    }
}
