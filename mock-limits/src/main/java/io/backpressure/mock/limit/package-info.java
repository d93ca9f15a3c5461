/**
 * Clock-free rate limiters as providers enforce them — fixed windows, sliding logs, token buckets,
 * cap schedules and outside traffic — each deciding on the time it is given, so that the HTTP mock
 * provider runs them on the wall clock and the simulator in virtual time.
 */
package io.backpressure.mock.limit;
