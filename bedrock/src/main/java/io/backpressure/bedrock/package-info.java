/**
 * The AWS SDK v2 Bedrock runtime clients, gated by an execution interceptor: {@link
 * io.backpressure.bedrock.GatedBedrock} configures a client whose every {@code Converse}, {@code
 * ConverseStream}, {@code InvokeModel} and {@code InvokeModelWithResponseStream} call is admitted
 * before it is signed and sent and released with the usage of its answer, a stream's included; a
 * {@code ThrottlingException} reaches the gate's provider feedback.
 */
package io.backpressure.bedrock;
