package io.backpressure.mock;

/**
 * One answered call to a completion endpoint, as the evaluation reads it. Times are nanoseconds
 * since the server started (the same origin as the limiters' windows).
 *
 * @param seq the record's position in the server's history, from 0, without gaps
 * @param tenant the {@code x-tenant} header, {@code "unknown"} when absent
 * @param priority the {@code x-priority} header, or {@code null}
 * @param callId the {@code x-call-id} header, or {@code null}: the caller's logical call, so that
 *     several attempts of one call can be joined
 * @param status 200, 429, 400, 413 (body over the limit) or 500 (the error rate, or the errors
 *     fault)
 * @param boundDimension on 429, {@code "requests"} or {@code "tokens"}; otherwise {@code null}
 * @param retryAfterNanos on 429, the wait the server advised (before rounding up to the headers'
 *     milliseconds), or -1 when the call can never fit; 0 otherwise
 * @param promptTokens estimated prompt tokens (0 on 400)
 * @param completionTokens generated completion tokens (0 unless 200)
 * @param chargedTokens what the tokens limiter was asked to admit (0 on 400), less what a stream
 *     cut short gave back of it ({@link ChargeMode#ACTUAL})
 * @param arrivalNanos when the request was decided
 * @param finishNanos when the answer was sent: after the simulated latency for 200 (for a stream,
 *     when its closing events were about to be written, or when the client was found gone), at once
 *     else
 */
public record RequestRecord(
    long seq,
    String tenant,
    String priority,
    String callId,
    int status,
    String boundDimension,
    long retryAfterNanos,
    long promptTokens,
    long completionTokens,
    long chargedTokens,
    long arrivalNanos,
    long finishNanos) {}
