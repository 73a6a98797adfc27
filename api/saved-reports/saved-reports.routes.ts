/** Saved reports of a store. */
import { defineRoutes } from '../http/route';
import { storeId } from '../http/schema-types';
import { CreateSavedReportDto } from './saved-reports.schemas';

export const savedReportsRoutes = defineRoutes({ tag: 'saved-reports', auth: 'merchant' }, [
  {
    operationId: 'savedReports.list',
    method: 'GET',
    path: '/saved-reports',
    summary: 'Saved reports of a store',
    query: { storeId: storeId() },
    status: 200,
  },
  {
    operationId: 'savedReports.create',
    method: 'POST',
    path: '/saved-reports',
    summary: 'Save a report definition',
    body: CreateSavedReportDto,
    status: 201,
  },
  { operationId: 'savedReports.delete', method: 'DELETE', path: '/saved-reports/{id}', summary: 'Delete a saved report', status: 204 },
]);
