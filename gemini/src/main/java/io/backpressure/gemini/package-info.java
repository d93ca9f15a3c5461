/**
 * Google's Gen AI Java client (the Gemini API), gated at its HTTP layer: {@link
 * io.backpressure.gemini.GatedGemini} builds a client whose every {@code generateContent} call,
 * whole or streamed, is admitted before it is sent and released with the usage of its answer; the
 * API's 429 details reach the gate's provider feedback.
 */
package io.backpressure.gemini;
