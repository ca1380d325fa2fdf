export { createRestHandler } from './handler'
