export { AppError, isErrorCode, httpStatusFor, type ErrorCode, type ErrorBody } from '@qw/contracts';
