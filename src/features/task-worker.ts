/** A validation worker thread's entry: the service's tasks, served by the validator layer's loop. */
import { serveTasks } from '../validator/worker.ts';
import { serviceTaskSet, warmUp } from './tasks.ts';

serveTasks(serviceTaskSet(), warmUp);
