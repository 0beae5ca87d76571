import { refuseRpcInTransactions } from '@qw/platform/bus';

// Every test that uses the testkit runs its services with RPCs refused inside open transactions,
// so a call to another service under a lock fails the test that reaches it.
refuseRpcInTransactions();
