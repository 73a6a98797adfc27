/** Every entity, listed explicitly so the data source never depends on file globs (src vs dist). */
import { OutboxMessage } from './outbox-message.entity';

export const entities = [OutboxMessage];
export { OutboxMessage };
