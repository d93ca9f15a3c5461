/**
 * What a run measured: per-call records and the metrics derived from them (shares, waits, 429s).
 */
package io.backpressure.eval.measure;
